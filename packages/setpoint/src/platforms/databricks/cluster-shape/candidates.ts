import type { ProjectSettings } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { NodeTypeFacts } from '@setpoint/validity/databricks';
import type { ClusterCostSpec, Market } from '../../../cost/cluster-spec.js';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import { instanceFamily } from '../../../optimizer/config-features.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { Cloud, InstanceTypeEntry, Plan } from '../../../pricing/schema.js';
import { type CandidateFilter, FilterTally } from '../../../service/recommender/candidate-filters.js';
import type {
  CandidateSpace,
  EngineTrialEntry,
  ShapeEntry,
  SpeedupPrior,
} from '../../../service/recommender/cluster-model.js';
import { instanceTypesToTry } from '../../../service/recommender/instance-types-to-try.js';
import type { ClusterPolicy, NewClusterSpec } from '../api/schema.js';
import { databricksWorkspaceFacts } from '../validity/workspace-facts.js';
import {
  type DatabricksClusterShape,
  defaultFirstOnDemand,
  hardwareOfShape,
  shapeId,
} from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { type DiskEvidence, ebsStorageFor, needsAttachedStorage } from './ebs-storage.js';
import { flexibleNodeTypesFilter, ranOnAlternates } from './flexible-node-types.js';
import { instancePoolFilter } from './instance-pool-filter.js';
import { photonBreakEvenForCluster } from './photon-breakeven.js';
import { genericPhotonSpeedupPrior, photonRuntimeRefusal } from './photon-trial.js';
import { validityFilters } from './validity-filters.js';

export interface SpaceContext {
  cloud: Cloud;
  region: string;
  plan: Plan;
  settings: ProjectSettings;
  /** The configuration the job runs on now: the space is built around it. */
  current: DatabricksClusterShape;
  /** Every configuration past runs used, so their outcomes map onto candidates. */
  observed: readonly DatabricksClusterShape[];
  /** The job cluster's compute policy: each rule on what Setpoint varies becomes a named filter. */
  policy?: ClusterPolicy | null;
  /** The instance pool the cluster runs on: its node type and market are kept. */
  instancePoolId?: string | null;
  /** The node types the workspace can launch (`clusters/list-node-types`), by id; null: not known, none left out. */
  launchableNodeTypes?: ReadonlyMap<string, NodeTypeFacts> | null;
  /** The job's cluster as reported (`new_cluster`): candidates are checked as written into it. */
  baseCluster?: NewClusterSpec | null;
  /** The cluster's Databricks Runtime (`spark_version`): Photon trials need one that runs Photon. */
  sparkVersion?: string | null;
  /** What Photon may do to this job's task time before it ran on Photon (`photonSpeedupPriorOf` its run). */
  photonSpeedup?: SpeedupPrior;
  /** What the based-on run wrote to local disk: EBS for a node type without instance store is sized from it. */
  diskEvidence?: DiskEvidence;
}

/** Worker counts tried: a geometric ladder (about √2 apart) plus the bounds and any observed count. */
const workerLadder = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];
/** Total cores considered relative to the first known cluster: wide enough to find the optimum, small enough to stay safe. */
const coreRatioRange = { min: 1 / 8, max: 4 };
/** Photon is considered only when the speed-up it needs to pay for itself is at most this. */
export const maxPlausiblePhotonSpeedup = 2.5;
/** A spot worker's expected price carries this share of extra runtime for interruptions and task re-runs. */
export const spotInterruptionAllowance = 0.05;
/** Autoscaling clusters scale down to this share of their maximum. */
const autoscaleMinShare = 0.25;

/**
 * The autoscale range of a cluster that may grow to `maxWorkers`: down to a quarter of it, never below the
 * project's minimum, and below the maximum (Databricks requires `max_workers` > `min_workers`). A maximum at
 * the project's minimum leaves no such range: the candidate keeps the quarter rule's bounds and the
 * validity filter (`autoscale-bounds`) leaves it out, saying why.
 */
export function autoscaleRangeOf(maxWorkers: number, settings: Pick<ProjectSettings, 'minWorkers'>) {
  const floor = Math.max(settings.minWorkers, 1);
  const min = Math.max(floor, Math.ceil(maxWorkers * autoscaleMinShare));
  return { minWorkers: min < maxWorkers ? min : Math.max(floor, maxWorkers - 1), maxWorkers };
}

function marketsFor(settings: ProjectSettings): Market[] {
  switch (settings.spotPolicy) {
    case 'on-demand-only':
      return ['on-demand'];
    case 'spot-with-fallback':
      return ['spot-with-fallback', 'on-demand'];
    case 'spot-allowed':
      return ['spot', 'spot-with-fallback', 'on-demand'];
  }
}

function workerCounts(settings: ProjectSettings, referenceCores: number, vcpus: number): number[] {
  const low = Math.max(1, settings.minWorkers);
  const counts = new Set<number>();
  for (const count of [low, settings.maxWorkers, ...workerLadder]) {
    if (count < low || count > settings.maxWorkers) continue;
    const ratio = (count * vcpus) / referenceCores;
    if (ratio < coreRatioRange.min || ratio > coreRatioRange.max) continue;
    counts.add(count);
  }
  return [...counts].sort((a, b) => a - b);
}

/**
 * Builds the discrete space of Databricks job clusters for a project: allowed worker node types × worker
 * counts within min..max × markets the spot policy permits × Photon (when allowed and its break-even is
 * plausible), fixed or autoscaling as `maintainScalingType` requires, each priced by the cost engine.
 */
export function buildCandidateSpace(
  catalog: PriceCatalog,
  nodeTypes: readonly InstanceTypeEntry[],
  context: SpaceContext,
  costModel: CostModel = createCostModel(catalog),
): CandidateSpace<DatabricksClusterShape> {
  const { cloud, region, settings, current } = context;
  const priced = (entry: InstanceTypeEntry) => {
    try {
      catalog.onDemandPrice(cloud, region, entry.instanceType);
      catalog.dbuRate(cloud, entry.instanceType, false);
      return true;
    } catch {
      return false;
    }
  };
  const types = instanceTypesToTry(nodeTypes, cloud, settings, current.workerNodeType).filter(priced);
  const currentEntry = nodeTypes.find(
    (entry) => entry.cloud === cloud && entry.instanceType === current.workerNodeType,
  );
  if (!currentEntry) {
    throw new ValidationError(
      'NODE_TYPE_UNKNOWN',
      `the current worker node type ${current.workerNodeType} is not in the ${cloud} price catalog`,
    );
  }
  // Sizes are bounded around the first known configuration, so a run of explorations cannot drift the space.
  const reference = context.observed[0] ?? current;
  const referenceType = nodeTypes.find(
    (entry) => entry.cloud === cloud && entry.instanceType === reference.workerNodeType,
  );
  const referenceCores = reference.workers * (referenceType ?? currentEntry).vcpus;
  const autoscaling = settings.maintainScalingType && current.autoscale !== null;
  // Photon off in the settings means Setpoint does not turn it on; a job already on Photon keeps it.
  const photonOptions = settings.photonAllowed ? [false, true] : [current.photon];
  const firstOnDemand = firstOnDemandOf(current, settings);
  const storageOf = attachedStorage(context);
  const choices: Array<{ shape: DatabricksClusterShape; allowed: boolean }> = [];
  for (const type of types) {
    for (const workers of workerCounts(settings, referenceCores, type.vcpus)) {
      for (const market of marketsFor(settings)) {
        for (const photon of photonOptions) {
          choices.push({
            allowed: true,
            shape: {
              cloud,
              workerNodeType: type.instanceType,
              driverNodeType: current.driverNodeType,
              workers,
              autoscale: autoscaling ? autoscaleRangeOf(workers, settings) : null,
              market,
              firstOnDemand: market === 'on-demand' ? 0 : firstOnDemand,
              photon,
              storage: storageOf(type, workers),
              // the job's own volumes stay on every node it runs, whatever Setpoint writes
              ...(current.jobVolumes ? { jobVolumes: current.jobVolumes } : {}),
            },
          });
        }
      }
    }
  }
  const allowedIds = new Set(choices.map((entry) => shapeId(entry.shape)));
  for (const shape of [current, ...context.observed]) {
    if (!allowedIds.has(shapeId(shape))) choices.push({ shape, allowed: false });
  }
  // runs on a flexible node type's alternate are evidence of that hardware, never a choice: first, so the
  // choice of the same shape is not taken instead
  choices.unshift(
    ...ranOnAlternates(context.baseCluster ?? null, current, context.observed).map((shape) => ({
      shape,
      allowed: false,
    })),
  );

  const byId = new Map<string, ShapeEntry<DatabricksClusterShape>>();
  const entries: ShapeEntry<DatabricksClusterShape>[] = [];
  const facts = databricksWorkspaceFacts({
    cloud,
    nodeTypes: context.launchableNodeTypes ?? null,
    policy: context.policy ?? null,
    catalog,
  });
  const chain = [
    ...(context.instancePoolId ? [instancePoolFilter(context.instancePoolId, current)] : []),
    ...flexibleNodeTypesFilter(context.baseCluster ?? null, current),
    ...validityFilters({ facts, base: context.baseCluster ?? null, current }),
    ...databricksCandidateFilters(costModel, { current, observed: context.observed }),
  ];
  const filters = new FilterTally<PricedShape>(chain);
  // A Photon candidate left out only for want of Photon evidence may be tried once when nothing on the
  // job's engine meets the SLA; every other filter (policy, pool, break-even) still holds for it.
  const trialFilters = chain.filter((filter) => filter.name !== photonEvidenceFilter);
  const photonTrials =
    settings.photonAllowed && !current.photon && photonRuntimeRefusal(context.sparkVersion) === null;
  const trials: EngineTrialEntry<DatabricksClusterShape>[] = [];
  for (const { shape: choice, allowed } of choices) {
    const id = shapeId(choice);
    if (byId.has(id)) continue;
    const type = nodeTypes.find(
      (entry) => entry.cloud === cloud && entry.instanceType === choice.workerNodeType,
    );
    if (!type) continue;
    const spec = costSpecOf(choice, { region, plan: context.plan, compute: 'jobs' });
    let usdPerHour: number;
    let kept: boolean;
    let trial: boolean;
    try {
      usdPerHour = costModel.rateCluster(spec).usdPerHour(choice.workers).expected;
      const priced = { choice, spec, allowed };
      kept = filters.keeps(priced);
      trial =
        !kept &&
        photonTrials &&
        allowed &&
        choice.photon &&
        trialFilters.every((filter) => filter.reject(priced) === null);
    } catch {
      continue;
    }
    if (!kept && !trial) continue;
    const spotAllowance = choice.market === 'on-demand' ? 1 : 1 + spotInterruptionAllowance;
    const entry: ShapeEntry<DatabricksClusterShape> = {
      candidate: {
        id,
        ...hardwareOfShape(choice),
        nodes: choice.workers,
        vcpusPerNode: type.vcpus,
        memoryGibPerNode: type.memoryGib,
        priceUsdPerNodeHour: (usdPerHour * spotAllowance) / choice.workers,
      },
      shape: choice,
      allowed,
    };
    if (trial) {
      trials.push({ entry, baselineId: shapeId({ ...choice, photon: false }) });
      continue;
    }
    byId.set(id, entry);
    entries.push(entry);
  }
  const allowedFamilies = [
    ...new Set(entries.filter((entry) => entry.allowed).map((entry) => instanceFamily(entry.candidate))),
  ];
  return {
    entries,
    byId,
    allowedFamilies,
    filtered: filters.outcomes,
    ...(trials.length > 0
      ? {
          trials: {
            engine: 'Photon',
            entries: trials,
            speedup: context.photonSpeedup ?? genericPhotonSpeedupPrior,
          },
        }
      : {}),
  };
}

/**
 * `first_on_demand` on a spot market: as the job sets it (Databricks' default, the driver on-demand, when it
 * runs all on-demand now), raised to 1 when the project keeps the driver on-demand. Setpoint does not
 * model what losing a spot driver costs a run, so it never moves a driver onto spot.
 */
export function firstOnDemandOf(
  current: DatabricksClusterShape,
  settings: Pick<ProjectSettings, 'forceOnDemandDriver'>,
): number {
  const kept = current.market === 'on-demand' ? defaultFirstOnDemand : current.firstOnDemand;
  return settings.forceOnDemandDriver ? Math.max(defaultFirstOnDemand, kept) : kept;
}

/**
 * EBS volumes for a candidate node type without instance store, when the job's cluster has none of its own
 * to keep (no `ebs_volume_count`, no `enable_elastic_disk`, no pool): sized from the run's spill and shuffle.
 * A node type the job already ran on keeps its cluster as it ran (a cluster that launches without volumes
 * today is not changed by Setpoint's own accord; one that does not launch is the write check's to refuse).
 */
function attachedStorage(context: SpaceContext) {
  const base = context.baseCluster ?? null;
  const aws = (base?.aws_attributes ?? {}) as Record<string, unknown>;
  const bringsOwn =
    Number(aws.ebs_volume_count ?? 0) > 0 ||
    base?.enable_elastic_disk === true ||
    typeof base?.instance_pool_id === 'string';
  const evidence = context.diskEvidence ?? { diskSpillBytes: 0, shuffleWriteBytes: 0 };
  const ranOn = new Set([context.current, ...context.observed].map((shape) => shape.workerNodeType));
  return (type: InstanceTypeEntry, workers: number) =>
    !bringsOwn && !ranOn.has(type.instanceType) && needsAttachedStorage(type)
      ? ebsStorageFor(evidence, workers)
      : null;
}

interface PricedShape {
  choice: DatabricksClusterShape;
  spec: ClusterCostSpec;
  /** Past configurations outside the project's bounds are kept whatever the filters say. */
  allowed: boolean;
}

/** The filter that leaves out the engine a job never ran on (its candidates may still be trialled). */
export const photonEvidenceFilter = 'photon-evidence';

/**
 * Databricks' candidate filters, in order: Photon is switched only where runs on both engines exist (the
 * model has no evidence of a job's Photon speed-up until then: a Photon log is not a standard one), and
 * only where the speed-up it needs to pay for itself is plausible.
 */
export function databricksCandidateFilters(
  costModel: CostModel,
  history: { current: DatabricksClusterShape; observed: readonly DatabricksClusterShape[] },
): CandidateFilter<PricedShape>[] {
  const engines = new Set([history.current, ...history.observed].map((shape) => shape.photon));
  const bothEngines = engines.size === 2;
  const engine = (photon: boolean) => (photon ? 'Photon' : 'standard');
  return [
    {
      name: photonEvidenceFilter,
      reject({ choice, allowed }) {
        if (!allowed || bothEngines || choice.photon === history.current.photon) return null;
        return `${engine(choice.photon)} on ${choice.workers} × ${choice.workerNodeType}: no run of this job on the ${engine(choice.photon)} engine to learn its speed-up from (the job runs ${engine(history.current.photon)})`;
      },
    },
    {
      name: 'photon-break-even',
      reject({ choice, spec, allowed }) {
        if (!allowed || !choice.photon) return null;
        const threshold = photonBreakEvenForCluster(costModel, spec, choice.workers).threshold;
        return threshold <= maxPlausiblePhotonSpeedup
          ? null
          : `Photon on ${choice.workers} × ${choice.workerNodeType} pays only at a ${threshold.toFixed(2)}× speed-up`;
      },
    },
  ];
}
