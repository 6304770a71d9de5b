import type { ProjectSettings } from '@setpoint/api-contract';
import type { CostModel } from '../../../cost/cost-model.js';
import { instanceFamily } from '../../../optimizer/config-features.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import { FilterTally } from '../../../service/recommender/candidate-filters.js';
import type { CandidateSpace, ShapeEntry } from '../../../service/recommender/cluster-model.js';
import { instanceTypesToTry } from '../../../service/recommender/instance-types-to-try.js';
import { costSpecOfChoice, type EmrChoice, emrChoiceId, taskMarketsFor } from './emr-choice.js';
import { emrValidityFilters } from './emr-validity-filters.js';

/** Executor-node counts tried: a geometric ladder, plus the bounds and the counts runs used. */
const nodeLadder = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128];
/** Executor cores relative to the first known cluster. */
const coreRatioRange = { min: 1 / 8, max: 4 };
/** A spot task instance's price carries this share of extra runtime for reclaims and re-run tasks. */
const spotInterruptionAllowance = 0.05;

/** The instance types the account's region supports for the cluster's EMR release. */
export interface SupportedInstanceTypes {
  releaseLabel: string;
  types: ReadonlySet<string>;
}

/**
 * The EMR candidates of a project: worker type × executor nodes (core + task) × task market. A transient
 * cluster may change type and size (core keeps at most its current count, the rest are task instances); a
 * long-running cluster keeps its types and core count and varies only its task instances.
 */
export function buildEmrCandidateSpace(
  nodeTypes: readonly InstanceTypeEntry[],
  costModel: CostModel,
  context: {
    region: string;
    settings: ProjectSettings;
    current: EmrChoice;
    observed: readonly EmrChoice[];
    /** What the region supports for the cluster's release; absent or null: it could not say. */
    supported?: SupportedInstanceTypes | null;
  },
): CandidateSpace<EmrChoice> {
  const { settings, current } = context;
  const reference = context.observed[0] ?? current;
  const vcpus = (type: string) =>
    nodeTypes.find((entry) => entry.cloud === 'aws' && entry.instanceType === type)?.vcpus ?? 0;
  const referenceCores = (reference.core + reference.task) * vcpus(reference.workerType);
  const types = current.longRunning
    ? nodeTypes.filter((entry) => entry.cloud === 'aws' && entry.instanceType === current.workerType)
    : instanceTypesToTry(nodeTypes, 'aws', settings, current.workerType);
  const choices: { choice: EmrChoice; allowed: boolean }[] = [];
  for (const type of types) {
    const low = Math.max(1, settings.minWorkers, current.longRunning ? current.core : 1);
    for (const nodes of new Set([low, settings.maxWorkers, ...nodeLadder])) {
      if (nodes < low || nodes > settings.maxWorkers) continue;
      const ratio = (nodes * type.vcpus) / referenceCores;
      if (ratio < coreRatioRange.min || ratio > coreRatioRange.max) continue;
      const core = current.longRunning ? current.core : Math.max(1, Math.min(current.core, nodes));
      // A running instance group keeps its market (changing it is a new launch configuration); fleets move targets.
      const markets =
        current.longRunning && current.collection === 'instance-groups'
          ? [current.taskMarket]
          : taskMarketsFor(settings, current.collection);
      for (const taskMarket of markets) {
        if (nodes - core === 0 && taskMarket !== 'on-demand' && markets.length > 1) continue;
        choices.push({
          allowed: true,
          choice: { ...current, workerType: type.instanceType, core, task: nodes - core, taskMarket },
        });
      }
    }
  }
  const allowedIds = new Set(choices.map((entry) => emrChoiceId(entry.choice)));
  for (const choice of [current, ...context.observed])
    if (!allowedIds.has(emrChoiceId(choice))) choices.push({ choice, allowed: false });

  const filters = new FilterTally(
    emrValidityFilters({
      facts: {
        supportedInstanceTypes: context.supported?.types ?? null,
        releaseLabel: context.supported?.releaseLabel ?? null,
        region: context.region,
      },
      current,
    }),
  );
  const byId = new Map<string, ShapeEntry<EmrChoice>>();
  const entries: ShapeEntry<EmrChoice>[] = [];
  for (const candidate of choices) {
    const { choice, allowed } = candidate;
    if (!filters.keeps(candidate)) continue;
    const id = emrChoiceId(choice);
    const type = nodeTypes.find((entry) => entry.cloud === 'aws' && entry.instanceType === choice.workerType);
    if (byId.has(id) || !type) continue;
    const nodes = choice.core + choice.task;
    let usdPerHour: number;
    try {
      usdPerHour = costModel.rateCluster(costSpecOfChoice(choice, context.region)).usdPerHour(nodes).expected;
    } catch {
      // A type without an EC2 price or EMR fee in the catalog cannot be a candidate.
      continue;
    }
    const spotShare = choice.taskMarket === 'on-demand' ? 0 : choice.task / nodes;
    const entry: ShapeEntry<EmrChoice> = {
      candidate: {
        id,
        instanceType: choice.workerType,
        // every candidate keeps the cluster's volumes: storage is not a dimension EMR candidates vary
        engine: 'standard',
        storage: null,
        nodes,
        vcpusPerNode: type.vcpus,
        memoryGibPerNode: type.memoryGib,
        priceUsdPerNodeHour: (usdPerHour * (1 + spotShare * spotInterruptionAllowance)) / nodes,
      },
      shape: choice,
      allowed,
    };
    byId.set(id, entry);
    entries.push(entry);
  }
  const allowedFamilies = [
    ...new Set(entries.filter((entry) => entry.allowed).map((entry) => instanceFamily(entry.candidate))),
  ];
  return { entries, byId, allowedFamilies, filtered: filters.outcomes };
}
