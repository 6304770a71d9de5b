import type { CandidateFilter } from '../../../service/recommendations/candidate-filters.js';
import type { ClusterPolicy, PolicyRule } from '../api/schema.js';
import { availabilityOf, type DatabricksClusterShape, shapeId } from './cluster-shape.js';

/** What the policy filters need to know of the job's cluster beyond its shape. */
export interface PolicyContext {
  /** The shape the job runs on now: never removed (the recommendation can always keep it). */
  current: DatabricksClusterShape;
  /** DBUs per hour of a shape at its widest (driver + maximum workers), for the `dbus_per_hour` rule. */
  dbusPerHour(shape: DatabricksClusterShape): number;
}

interface PolicyCandidate {
  choice: DatabricksClusterShape;
  allowed: boolean;
}

/**
 * The attributes Setpoint varies, by policy path, as a shape sets them. Rules on any other path (spark
 * version, tags, init scripts, …) are about what Setpoint never changes, so they cannot remove a candidate.
 */
function attributesOf(shape: DatabricksClusterShape, context: PolicyContext): Map<string, unknown> {
  const attributes = shape.cloud === 'azure' ? 'azure_attributes' : 'aws_attributes';
  const values = new Map<string, unknown>([
    ['node_type_id', shape.workerNodeType],
    ['driver_node_type_id', shape.driverNodeType],
    ['runtime_engine', shape.photon ? 'PHOTON' : 'STANDARD'],
    [`${attributes}.availability`, availabilityOf(shape.market, shape.cloud)],
    [`${attributes}.first_on_demand`, shape.firstOnDemand],
    ['dbus_per_hour', context.dbusPerHour(shape)],
  ]);
  if (shape.autoscale) {
    values.set('autoscale.min_workers', shape.autoscale.minWorkers);
    values.set('autoscale.max_workers', shape.autoscale.maxWorkers);
  } else {
    values.set('num_workers', shape.workers);
  }
  return values;
}

const shown = (value: unknown) =>
  typeof value === 'number' ? String(Math.round(value * 100) / 100) : String(value);

/** Why a value breaks a rule, or null. A path the shape leaves unset breaks only "forbidden" on its parent. */
function breaks(rule: PolicyRule, value: unknown): string | null {
  switch (rule.type) {
    case 'fixed':
      return value === rule.value ? null : `is fixed to ${shown(rule.value)}`;
    case 'forbidden':
      return 'is forbidden';
    case 'allowlist':
      return (rule.values ?? []).includes(value)
        ? null
        : `is not in the allowlist (${(rule.values ?? []).map(shown).join(', ')})`;
    case 'blocklist':
      return (rule.values ?? []).includes(value) ? 'is in the blocklist' : null;
    case 'regex':
      return new RegExp(rule.pattern ?? '').test(String(value))
        ? null
        : `does not match ${rule.pattern ?? ''}`;
    case 'range': {
      const number = Number(value);
      if (rule.minValue !== undefined && number < rule.minValue)
        return `is below the minimum ${rule.minValue}`;
      if (rule.maxValue !== undefined && number > rule.maxValue)
        return `is above the maximum ${rule.maxValue}`;
      return null;
    }
    case 'unlimited':
      return null;
  }
}

/**
 * One named filter per rule of the job cluster's compute policy that bears on what Setpoint varies
 * ("policy node_type_id allowlist", "policy dbus_per_hour range"): a candidate the policy would reject
 * on jobs/update is left out, with the rule and the value that breaks it. Past configurations (outside
 * the project's bounds) and the current cluster are kept.
 */
export function policyCandidateFilters(
  policy: ClusterPolicy,
  context: PolicyContext,
): CandidateFilter<PolicyCandidate>[] {
  const currentId = shapeId(context.current);
  const filters: CandidateFilter<PolicyCandidate>[] = [];
  for (const [path, rule] of Object.entries(policy.definition)) {
    if (rule.type === 'unlimited') continue;
    filters.push({
      name: `policy ${path} ${rule.type}`,
      reject({ choice, allowed }) {
        if (!allowed || shapeId(choice) === currentId) return null;
        const values = attributesOf(choice, context);
        // "autoscale" forbidden forbids its children; a child path the shape does not set is not judged
        const own = values.has(path);
        const child = [...values.keys()].find((key) => key.startsWith(`${path}.`));
        if (!own && !(rule.type === 'forbidden' && child)) return null;
        const value = own ? values.get(path) : values.get(child as string);
        const problem = breaks(rule, value);
        return problem
          ? `${describeChoice(choice)}: ${path} ${shown(value)} ${problem} (policy "${policy.name}")`
          : null;
      },
    });
  }
  return filters;
}

/**
 * A node type the workspace cannot launch (not in its `clusters/list-node-types`, or deprecated, hidden or
 * unavailable there) is left out: jobs/update would accept it and the next run would fail to start. The
 * current cluster's own types are kept: it runs, whatever the list now says of them.
 */
export function launchableNodeTypeFilter(
  launchable: ReadonlySet<string>,
  current: DatabricksClusterShape,
): CandidateFilter<PolicyCandidate> {
  const running = new Set([current.workerNodeType, current.driverNodeType]);
  return {
    name: 'workspace-node-types',
    reject({ choice, allowed }) {
      if (!allowed) return null;
      for (const nodeType of [choice.workerNodeType, choice.driverNodeType])
        if (!launchable.has(nodeType) && !running.has(nodeType))
          return `${describeChoice(choice)}: the workspace cannot launch ${nodeType} (clusters/list-node-types)`;
      return null;
    },
  };
}

/**
 * A cluster on an instance pool takes its node type and market from the pool: a candidate with another
 * node type or market would leave the pool, so it is left out and the pool kept.
 */
export function instancePoolFilter(
  poolId: string,
  current: DatabricksClusterShape,
): CandidateFilter<PolicyCandidate> {
  return {
    name: 'instance-pool',
    reject({ choice, allowed }) {
      if (!allowed) return null;
      if (choice.workerNodeType !== current.workerNodeType)
        return `${describeChoice(choice)}: the cluster runs on instance pool ${poolId}, whose node type is ${current.workerNodeType}`;
      if (
        choice.market !== current.market ||
        choice.firstOnDemand !== current.firstOnDemand ||
        choice.driverNodeType !== current.driverNodeType
      )
        return `${describeChoice(choice)}: instance pool ${poolId} decides the market and the driver`;
      return null;
    },
  };
}

function describeChoice(choice: DatabricksClusterShape): string {
  const size = choice.autoscale
    ? `${choice.autoscale.minWorkers}–${choice.autoscale.maxWorkers}`
    : String(choice.workers);
  return `${size} × ${choice.workerNodeType} ${choice.market}${choice.photon ? ' Photon' : ''}`;
}
