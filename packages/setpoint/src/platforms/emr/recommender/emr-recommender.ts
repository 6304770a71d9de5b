import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { ClusterModel } from '../../../service/recommender/cluster-model.js';
import {
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommender/optimizer-recommender.js';
import type {
  FleetProjectHistory,
  FoldInput,
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from '../../../service/recommender/recommender.js';
import { emrRunReportSchema } from '../runs/emr-run-report.js';
import { emrServerlessMonitoring } from '../serverless/emr-serverless-monitoring.js';
import { isEmrServerlessConfiguration } from '../serverless/emr-serverless-run.js';
import { buildEmrCandidateSpace, type SupportedInstanceTypes } from './emr-candidates.js';
import { choiceOfShape, type EmrChoice, emrChoiceId } from './emr-choice.js';
import { emrConfigurationOf } from './emr-configuration.js';
import type { SupportedInstanceTypeReader } from './supported-instance-types.js';

/**
 * EMR clusters as the recommender sees them: each run's report parsed once into a choice. Before
 * recommending it reads which instance types the account's region supports for the based-on run's EMR
 * release.
 */
export function emrClusterModel(deps: {
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
  /** Where the region's instance types per release are read; without it, every priced type may be recommended. */
  supportedInstanceTypes?: SupportedInstanceTypeReader | undefined;
}): ClusterModel<EmrChoice, SupportedInstanceTypes> {
  return {
    async prepare(input, basedOn) {
      const accountId = input.project.workspace?.id;
      const report = emrRunReportSchema.safeParse(basedOn.clusterConfig);
      const releaseLabel = report.success ? report.data.cluster.releaseLabel : null;
      if (!accountId || !releaseLabel || !deps.supportedInstanceTypes) return null;
      const types = await deps.supportedInstanceTypes(accountId, releaseLabel);
      return types ? { releaseLabel, types } : null;
    },
    clusterless: (run) => isEmrServerlessConfiguration(run.clusterConfig),
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
    candidateSpace({ basedOn, settings, current, observed, reads }) {
      const report = emrRunReportSchema.parse(basedOn.clusterConfig);
      return buildEmrCandidateSpace(deps.nodeTypes, deps.costModel, {
        region: report.region,
        settings,
        current,
        observed,
        supported: reads,
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
 * The service's recommender on EMR: a job's runs on EMR Serverless are monitored (`emrServerlessMonitoring`);
 * its runs on EMR clusters get the core recommender (SLA, preferences, phases, explanations) over EMR's cluster
 * model, from those runs alone (a job that moved between the two keeps both in its project).
 */
export class EmrRecommender implements Recommender {
  readonly clusters: OptimizerRecommender<EmrChoice, SupportedInstanceTypes>;

  constructor(options: EmrRecommenderOptions) {
    const model = emrClusterModel({
      nodeTypes: options.nodeTypes,
      costModel: options.costModel ?? createCostModel(options.catalog),
      supportedInstanceTypes: options.supportedInstanceTypes,
    });
    this.clusters = new OptimizerRecommender(model, options);
  }

  recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (basedOn && isEmrServerlessConfiguration(basedOn.clusterConfig))
      return Promise.resolve(emrServerlessMonitoring(input));
    const onClusters = input.runs.filter((run) => !isEmrServerlessConfiguration(run.clusterConfig));
    return this.clusters.recommend(
      onClusters.length === input.runs.length ? input : { ...input, runs: onClusters },
    );
  }

  /** The cluster recommendation synchronously, with nothing read from an account (the simulated tests). */
  recommendNow(input: RecommendationInput): RecommendationOutput {
    return this.clusters.recommendNow(input);
  }

  fold(input: FoldInput) {
    return this.clusters.fold(input);
  }

  fleetJobOf(history: FleetProjectHistory) {
    return this.clusters.fleetJobOf(history);
  }
}

export function emrRecommender(options: EmrRecommenderOptions): EmrRecommender {
  return new EmrRecommender(options);
}
