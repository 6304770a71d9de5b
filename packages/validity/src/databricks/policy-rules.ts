import { isObject, type JsonObject, numberOf } from '../json-fields.js';
import type { Finding } from '../rule.js';
import type { DatabricksWorkspaceFacts, PolicyFacts, PolicyRuleFacts } from './workspace-facts.js';

/** A cluster's attributes by dotted path ("aws_attributes.availability"), with `dbus_per_hour` added when priced. */
export function policyAttributes(cluster: JsonObject, facts: DatabricksWorkspaceFacts): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const walk = (value: unknown, prefix: string) => {
    if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
    } else if (prefix) values.set(prefix, value);
  };
  walk(cluster, '');
  const dbus = dbusPerHourOf(cluster, facts);
  if (dbus !== null) values.set('dbus_per_hour', dbus);
  return values;
}

/**
 * DBUs an hour of the cluster at its widest: the driver plus the most workers it may have, on its engine.
 * Null when a node type is not named or not priced (a pool cluster's types come from the pool).
 */
function dbusPerHourOf(cluster: JsonObject, facts: DatabricksWorkspaceFacts): number | null {
  if (!facts.dbusPerHour) return null;
  const named = (field: string, poolField: string): string | undefined => {
    const id = cluster[field];
    if (typeof id === 'string') return id;
    const pool = facts.instancePools?.get(String(cluster[poolField]));
    return pool?.nodeTypeId;
  };
  const worker = named('node_type_id', 'instance_pool_id');
  const driver =
    named('driver_node_type_id', 'driver_instance_pool_id') ??
    (cluster.driver_node_type_id === undefined ? worker : undefined);
  if (!worker || !driver) return null;
  const photon =
    cluster.runtime_engine === 'PHOTON' ||
    (cluster.runtime_engine === undefined &&
      typeof cluster.spark_version === 'string' &&
      cluster.spark_version.includes('-photon-'));
  const workerRate = facts.dbusPerHour(worker, photon);
  const driverRate = facts.dbusPerHour(driver, photon);
  if (workerRate === null || driverRate === null) return null;
  const autoscale = isObject(cluster.autoscale) ? cluster.autoscale : undefined;
  const workers = numberOf(autoscale ? autoscale.max_workers : (cluster.num_workers ?? 0));
  return driverRate + (Number.isFinite(workers) ? workers : 0) * workerRate;
}

/** A value as a policy message shows it: numbers to two decimals, strings bare. */
const rounded = (value: unknown) =>
  typeof value === 'number'
    ? String(Math.round(value * 100) / 100)
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** Why a value breaks a rule, or null. */
export function breaksPolicyRule(path: string, rule: PolicyRuleFacts, value: unknown): string | null {
  if (value === undefined) {
    // a fixed value or a default is filled in by the service; a blocklist has nothing to block
    const required =
      (rule.type === 'allowlist' || rule.type === 'range' || rule.type === 'regex') &&
      rule.defaultValue === undefined &&
      rule.isOptional !== true &&
      path !== 'dbus_per_hour';
    return required ? 'is required by the policy' : null;
  }
  switch (rule.type) {
    case 'fixed':
      return value === rule.value ? null : `is fixed to ${rounded(rule.value)}`;
    case 'forbidden':
      return 'is forbidden';
    case 'allowlist':
      return (rule.values ?? []).includes(value)
        ? null
        : `is not in the allowlist (${(rule.values ?? []).map(rounded).join(', ')})`;
    case 'blocklist':
      return (rule.values ?? []).includes(value) ? 'is in the blocklist' : null;
    case 'regex':
      return new RegExp(rule.pattern ?? '').test(String(value))
        ? null
        : `does not match ${rule.pattern ?? ''}`;
    case 'range': {
      const number = numberOf(value);
      if (rule.minValue !== undefined && !(number >= rule.minValue))
        return `is below the minimum ${rule.minValue}`;
      if (rule.maxValue !== undefined && !(number <= rule.maxValue))
        return `is above the maximum ${rule.maxValue}`;
      return null;
    }
    case 'unlimited':
      return null;
  }
}

/** The value at a policy path; a forbidden parent ("autoscale") forbids its children ("autoscale.max_workers"). */
function valueAt(values: Map<string, unknown>, path: string, rule: PolicyRuleFacts): unknown {
  if (values.has(path)) return values.get(path);
  if (rule.type !== 'forbidden') return undefined;
  for (const [key, value] of values) if (key.startsWith(`${path}.`)) return value;
  return undefined;
}

/** Each rule of `policy` the cluster breaks, as "`path` value problem (policy name)". */
export function policyRuleFindings(
  cluster: JsonObject,
  policy: PolicyFacts,
  facts: DatabricksWorkspaceFacts,
): Finding[] {
  const values = policyAttributes(cluster, facts);
  const findings: Finding[] = [];
  for (const [path, rule] of Object.entries(policy.definition)) {
    const value = valueAt(values, path, rule);
    const problem = breaksPolicyRule(path, rule, value);
    if (problem)
      findings.push({
        field: path,
        message: `Validation failed: ${path}${value === undefined ? '' : ` ${rounded(value)}`} ${problem} (policy "${policy.name}").`,
      });
  }
  return findings;
}

/** The findings of the policy the cluster names; a named policy that does not exist is one itself. */
export function policyFindings(cluster: JsonObject, facts: DatabricksWorkspaceFacts): Finding[] {
  const policyId = cluster.policy_id;
  if (typeof policyId !== 'string' || !facts.policies) return [];
  const policy = facts.policies.get(policyId);
  if (!policy) return [{ field: 'policy_id', message: `Cluster policy ${policyId} does not exist.` }];
  return policyRuleFindings(cluster, policy, facts);
}
