import { findNodeType } from '../physics/node-types.js';
import { invalidParameter } from './api-errors.js';
import type { EmulatorState } from './emulator-state.js';
import type { JobSettings, NewClusterSettings } from './schema.js';

type Json = Record<string, unknown>;

/** One rule of a policy definition, by attribute path (Databricks' compute policy reference). */
interface PolicyRule {
  type?: string;
  defaultValue?: unknown;
  value?: unknown;
  values?: unknown[];
  pattern?: string;
  minValue?: number;
  maxValue?: number;
  isOptional?: boolean;
}

/** The cluster's attributes by dotted path ("aws_attributes.availability"), with `dbus_per_hour` added. */
function attributeValues(cluster: NewClusterSettings, state: EmulatorState): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const walk = (value: unknown, prefix: string) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value as Json))
        walk(child, prefix ? `${prefix}.${key}` : key);
    } else if (prefix) values.set(prefix, value);
  };
  walk(cluster, '');
  const spec = cluster as Json;
  const pool = state.instancePools.get(String(spec.instance_pool_id ?? ''));
  const worker = findNodeType(String(spec.node_type_id ?? pool?.nodeTypeId ?? ''));
  const driver = findNodeType(
    String(spec.driver_node_type_id ?? spec.node_type_id ?? pool?.nodeTypeId ?? ''),
  );
  if (worker && driver) {
    const workers = cluster.autoscale?.max_workers ?? cluster.num_workers ?? 0;
    const dbus = (node: typeof worker) => node.cores * node.dbuPerCoreHour;
    values.set('dbus_per_hour', dbus(driver) + workers * dbus(worker));
  }
  return values;
}

function violation(path: string, rule: PolicyRule, value: unknown): string | null {
  const shown = JSON.stringify(value);
  if (value === undefined) {
    // a fixed value or a default is filled in by the service; a blocklist has nothing to block
    const required =
      (rule.type === 'allowlist' || rule.type === 'range' || rule.type === 'regex') &&
      rule.defaultValue === undefined &&
      !rule.isOptional &&
      path !== 'dbus_per_hour';
    return required ? `${path} is required by the policy` : null;
  }
  switch (rule.type) {
    case 'fixed':
      return value === rule.value ? null : `${path} must be ${JSON.stringify(rule.value)}, not ${shown}`;
    case 'forbidden':
      return `${path} is forbidden by the policy`;
    case 'allowlist':
      return (rule.values ?? []).includes(value) ? null : `${path} ${shown} is not in the allowlist`;
    case 'blocklist':
      return (rule.values ?? []).includes(value) ? `${path} ${shown} is in the blocklist` : null;
    case 'regex':
      return new RegExp(rule.pattern ?? '').test(String(value))
        ? null
        : `${path} ${shown} does not match ${rule.pattern ?? ''}`;
    case 'range': {
      const number = Number(value);
      if (rule.minValue !== undefined && number < rule.minValue)
        return `${path} ${shown} is below the minimum ${rule.minValue}`;
      if (rule.maxValue !== undefined && number > rule.maxValue)
        return `${path} ${shown} is above the maximum ${rule.maxValue}`;
      return null;
    }
    default:
      return null;
  }
}

/** A forbidden parent ("autoscale") forbids its children ("autoscale.max_workers") as well. */
function valueAt(values: Map<string, unknown>, path: string): unknown {
  if (values.has(path)) return values.get(path);
  for (const [key, value] of values) if (key.startsWith(`${path}.`)) return value;
  return undefined;
}

/** Every `new_cluster` of a job: its shared job clusters and its tasks' own. */
function jobClusters(settings: JobSettings): NewClusterSettings[] {
  return [
    ...(settings.job_clusters ?? []).map((entry) => entry.new_cluster),
    ...(settings.tasks ?? []).map((task) => task.new_cluster),
  ].filter((cluster): cluster is NewClusterSettings => cluster !== undefined);
}

/** Rejects a job whose clusters break the policy they name, with the first broken rule (as the service does). */
export function checkClusterPolicies(settings: JobSettings, state: EmulatorState): void {
  for (const cluster of jobClusters(settings)) {
    const policyId = (cluster as Json).policy_id;
    if (typeof policyId !== 'string') continue;
    const policy = state.policies.get(policyId);
    if (!policy) throw invalidParameter(`Cluster policy ${policyId} does not exist.`);
    const rules = JSON.parse(policy.definition) as Record<string, PolicyRule>;
    const values = attributeValues(cluster, state);
    for (const [path, rule] of Object.entries(rules)) {
      const problem = violation(path, rule, valueAt(values, path));
      if (problem)
        throw invalidParameter(`Validation failed for ${path}: ${problem} (policy ${policy.name}).`);
    }
  }
}

/** A cluster on an instance pool runs the pool's node type in the pool's market. */
export function withInstancePool(cluster: NewClusterSettings, state: EmulatorState): NewClusterSettings {
  const spec = cluster as Json;
  const pool = state.instancePools.get(String(spec.instance_pool_id ?? ''));
  if (!pool) return cluster;
  const driverPool = state.instancePools.get(String(spec.driver_instance_pool_id ?? '')) ?? pool;
  return {
    ...cluster,
    node_type_id: pool.nodeTypeId,
    driver_node_type_id: cluster.driver_node_type_id ?? driverPool.nodeTypeId,
    ...(pool.awsAttributes ? { aws_attributes: { ...cluster.aws_attributes, ...pool.awsAttributes } } : {}),
    ...(pool.azureAttributes
      ? { azure_attributes: { ...cluster.azure_attributes, ...pool.azureAttributes } }
      : {}),
  } as NewClusterSettings;
}

/** Databricks takes the node type of a pool cluster from the pool: naming another one is an error. */
export function checkInstancePools(settings: JobSettings, state: EmulatorState): void {
  for (const cluster of jobClusters(settings)) {
    const poolId = (cluster as Json).instance_pool_id;
    if (typeof poolId !== 'string') continue;
    const pool = state.instancePools.get(poolId);
    if (!pool) throw invalidParameter(`Instance pool ${poolId} does not exist.`);
    if (cluster.node_type_id !== undefined && cluster.node_type_id !== pool.nodeTypeId)
      throw invalidParameter(
        `Cluster node type ${cluster.node_type_id} conflicts with instance pool ${poolId} (${pool.nodeTypeId}).`,
      );
  }
}
