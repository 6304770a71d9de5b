import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import {
  type ClusterModel,
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommendations/optimizer-recommender.js';
import { ReadsByRun } from '../../../service/recommendations/reads-by-run.js';
import type {
  RecommendationInput,
  RecommendationOutput,
  RecommenderRun,
} from '../../../service/recommendations/recommender.js';
import { emrRunReportSchema } from '../runs/emr-run-report.js';
import { buildEmrCandidateSpace, type SupportedInstanceTypes } from './emr-candidates.js';
import { choiceOfShape, type EmrChoice, emrChoiceId } from './emr-choice.js';
import { emrConfigurationOf } from './emr-configuration.js';
import type { SupportedInstanceTypeReader } from './supported-instance-types.js';

/** EMR clusters as the recommender sees them: each run's report parsed once into a choice. */
export function emrClusterModel(deps: {
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
  /** What the region supports for the based-on run's release, read before recommending; null: cannot say. */
  supportedOf?: (run: RecommenderRun) => SupportedInstanceTypes | null;
}): ClusterModel<EmrChoice> {
  return {
    shapeOfRun(run) {
      const report = emrRunReportSchema.safeParse(run.clusterConfig);
      if (!report.success) {
        const issue = report.error.issues[0];
        throw new ValidationError(
          'EMR_REPORT_MISSING',
          run.clusterConfig === null
            ? `run ${run.id} has no EMR cluster report to read its cluster from`
            : `run ${run.id}'s EMR cluster report is not valid at ${issue?.path.join('.')}: ${issue?.message}`,
        );
      }
      return choiceOfShape(report.data.shape, report.data.cluster, deps.nodeTypes);
    },
    shapeId: emrChoiceId,
    candidateSpace({ basedOn, settings, current, observed }) {
      const report = emrRunReportSchema.parse(basedOn.clusterConfig);
      return buildEmrCandidateSpace(deps.nodeTypes, deps.costModel, {
        region: report.region,
        settings,
        current,
        observed,
        supported: deps.supportedOf?.(basedOn) ?? null,
      });
    },
    onDemandTwin: (choice) =>
      choice.taskMarket === 'on-demand' || choice.task === 0 ? null : { ...choice, taskMarket: 'on-demand' },
    configurationOf: emrConfigurationOf,
    priceKind: (choice) =>
      `${choice.collection}|${choice.managedScaling ? 'managed-scaling' : 'fixed'}|${choice.task > 0 ? choice.taskMarket : 'no-task'}`,
    describe: describeEmrChoice,
  };
}

/** "1 × m5.xlarge primary, 4 × r5.2xlarge core + 6 task (spot), managed scaling". */
function describeEmrChoice(choice: EmrChoice): string {
  const task = choice.task > 0 ? ` + ${choice.task} task (${choice.taskMarket})` : '';
  const scaling = choice.managedScaling ? ', managed scaling' : '';
  return `1 × ${choice.primaryType} primary, ${choice.core} × ${choice.workerType} core${task}${scaling}`;
}

export interface EmrRecommenderOptions extends OptimizerRecommenderOptions {
  catalog: PriceCatalog;
  nodeTypes: readonly InstanceTypeEntry[];
  costModel?: CostModel;
  /** Where the region's instance types per release are read; without it, every priced type may be recommended. */
  supportedInstanceTypes?: SupportedInstanceTypeReader;
}

/**
 * The service's recommender on EMR clusters: the core recommender (SLA, preferences, phases, explanations)
 * over EMR's shapes. Before recommending it reads which instance types the account's region supports for
 * the based-on run's EMR release.
 */
export class EmrRecommender extends OptimizerRecommender<EmrChoice> {
  readonly #supportedInstanceTypes: SupportedInstanceTypeReader | undefined;
  /** What the regions support for the recommendations in progress, by based-on run. */
  readonly #supported: ReadsByRun<SupportedInstanceTypes>;

  constructor(options: EmrRecommenderOptions) {
    const supported = new ReadsByRun<SupportedInstanceTypes>();
    super(
      emrClusterModel({
        nodeTypes: options.nodeTypes,
        costModel: options.costModel ?? createCostModel(options.catalog),
        supportedOf: supported.of,
      }),
      options,
    );
    this.#supportedInstanceTypes = options.supportedInstanceTypes;
    this.#supported = supported;
  }

  override async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    const accountId = input.project.workspace?.id;
    const report = emrRunReportSchema.safeParse(basedOn?.clusterConfig);
    const releaseLabel = report.success ? report.data.cluster.releaseLabel : null;
    if (!basedOn || !accountId || !releaseLabel || !this.#supportedInstanceTypes)
      return super.recommend(input);
    const types = await this.#supportedInstanceTypes(accountId, releaseLabel);
    if (!types) return super.recommend(input);
    return this.#supported.during(basedOn.id, { releaseLabel, types }, () => super.recommend(input));
  }
}
