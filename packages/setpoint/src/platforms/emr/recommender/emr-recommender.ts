import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { ClusterModel } from '../../../service/recommender/cluster-model.js';
import {
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommender/optimizer-recommender.js';
import { emrRunReportSchema } from '../runs/emr-run-report.js';
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
 * The service's recommender on EMR clusters: the core recommender (SLA, preferences, phases, explanations)
 * over EMR's cluster model.
 */
export function emrRecommender(
  options: EmrRecommenderOptions,
): OptimizerRecommender<EmrChoice, SupportedInstanceTypes> {
  const model = emrClusterModel({
    nodeTypes: options.nodeTypes,
    costModel: options.costModel ?? createCostModel(options.catalog),
    supportedInstanceTypes: options.supportedInstanceTypes,
  });
  return new OptimizerRecommender(model, options);
}
