import type { ProjectSettings } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { ClusterCostSpec, Market } from '../../../cost/cluster-spec.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { EmrClusterShape, EmrVolume } from '../cluster-shape/emr-cluster-shape.js';
import { emrBilling } from '../cost/emr-billing.js';
import { volumeSpecs } from '../cost/emr-timeline.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';

/**
 * An EMR cluster as the recommender varies it. Executors run on core and task instances of one worker
 * type; core instances also hold HDFS, so they stay on-demand (a spot reclaim would lose blocks) and a
 * long-running cluster keeps its core count and instance types (EMR cannot change a running group's
 * type, and shrinking core decommissions HDFS); only task instances and their market move there.
 */
export interface EmrChoice {
  collection: 'instance-groups' | 'instance-fleets';
  primaryType: string;
  workerType: string;
  core: number;
  task: number;
  /** `spot-with-fallback` only for fleets (spot with a switch-to-on-demand timeout). */
  taskMarket: Market;
  /** Volumes per core and task instance. */
  volumes: EmrVolume[];
  rootVolumeGb: number | null;
  longRunning: boolean;
  /** The cluster uses managed scaling: its limits become core (minimum) to core + task (maximum). */
  managedScaling: boolean;
}

export function emrChoiceId(choice: EmrChoice): string {
  return `${choice.workerType}:${choice.core}c+${choice.task}t:${choice.taskMarket}`;
}

function vcpusOf(nodeTypes: readonly InstanceTypeEntry[], type: string): number {
  const entry = nodeTypes.find((candidate) => candidate.cloud === 'aws' && candidate.instanceType === type);
  if (!entry)
    throw new ValidationError(
      'NODE_TYPE_UNKNOWN',
      `the EMR instance type ${type} is not in the AWS price catalog`,
    );
  return entry.vcpus;
}

/**
 * The choice a run's cluster was: the core type is the worker type; task instances of another type count
 * as that many core-type instances by vCPUs (rounded), since the optimizer models one worker type.
 */
export function choiceOfShape(
  shape: EmrClusterShape,
  report: Pick<EmrRunReport['cluster'], 'transient' | 'rootVolumeGb'>,
  nodeTypes: readonly InstanceTypeEntry[],
): EmrChoice {
  type Pool = { type: string; count: number; spot: boolean; volumes: EmrVolume[] };
  const pools: Record<'MASTER' | 'CORE' | 'TASK', Pool[]> = { MASTER: [], CORE: [], TASK: [] };
  if (shape.kind === 'instance-groups') {
    for (const group of shape.groups)
      pools[group.role].push({
        type: group.instanceType,
        count: group.count,
        spot: group.market === 'SPOT',
        volumes: group.volumes,
      });
  } else {
    for (const fleet of shape.fleets) {
      const first = fleet.types[0];
      if (!first) continue;
      const units = (target: number) => Math.ceil(target / first.weightedCapacity);
      if (fleet.targetOnDemand > 0)
        pools[fleet.role].push({
          type: first.instanceType,
          count: units(fleet.targetOnDemand),
          spot: false,
          volumes: first.volumes,
        });
      if (fleet.targetSpot > 0)
        pools[fleet.role].push({
          type: first.instanceType,
          count: units(fleet.targetSpot),
          spot: true,
          volumes: first.volumes,
        });
    }
  }
  const primary = pools.MASTER[0];
  const core = pools.CORE[0];
  if (!primary || !core)
    throw new ValidationError(
      'EMR_SHAPE_INCOMPLETE',
      'an EMR cluster needs a primary and a core instance group or fleet to be optimized',
    );
  const workerVcpus = vcpusOf(nodeTypes, core.type);
  const coreCount = pools.CORE.reduce((sum, pool) => sum + pool.count, 0);
  const taskCount = Math.round(
    pools.TASK.reduce((sum, pool) => sum + (pool.count * vcpusOf(nodeTypes, pool.type)) / workerVcpus, 0),
  );
  const spotTasks = pools.TASK.some((pool) => pool.spot && pool.count > 0);
  return {
    collection: shape.kind,
    primaryType: primary.type,
    workerType: core.type,
    core: coreCount,
    task: taskCount,
    taskMarket: spotTasks ? 'spot' : 'on-demand',
    volumes: core.volumes,
    rootVolumeGb: report.rootVolumeGb,
    longRunning: !report.transient,
    managedScaling: shape.managedScaling !== null,
  };
}

/** How the cost engine prices a choice: primary and core on-demand (first), tasks on their market, EMR billing. */
export function costSpecOfChoice(choice: EmrChoice, region: string): ClusterCostSpec {
  return {
    cloud: 'aws',
    region,
    billing: emrBilling,
    driverNodeType: choice.primaryType,
    workerNodeType: choice.workerType,
    market: choice.task === 0 ? 'on-demand' : choice.taskMarket,
    firstOnDemand: 1 + choice.core,
    volumesPerNode: volumeSpecs(choice.volumes, choice.rootVolumeGb),
  };
}

/** Task markets the project's spot policy allows for this collection type. */
export function taskMarketsFor(settings: ProjectSettings, collection: EmrChoice['collection']): Market[] {
  switch (settings.spotPolicy) {
    case 'on-demand-only':
      return ['on-demand'];
    case 'spot-with-fallback':
      // Instance groups have no on-demand fallback; fleets do (spot timeout → SWITCH_TO_ON_DEMAND).
      return collection === 'instance-fleets' ? ['spot-with-fallback', 'on-demand'] : ['on-demand'];
    case 'spot-allowed':
      return ['spot', 'on-demand'];
  }
}
