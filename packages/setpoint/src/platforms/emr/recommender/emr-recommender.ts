import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import {
  type ClusterModel,
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommendations/optimizer-recommender.js';
import { emrRunReportSchema } from '../runs/emr-run-report.js';
import { buildEmrCandidateSpace } from './emr-candidates.js';
import { choiceOfShape, type EmrChoice, emrChoiceId } from './emr-choice.js';
import { emrConfigurationOf } from './emr-configuration.js';

/** EMR clusters as the recommender sees them: each run's report parsed once into a choice. */
export function emrClusterModel(deps: {
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
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
}

/** The service's recommender on EMR clusters: the core recommender (SLA, preferences, phases, explanations) over EMR's shapes. */
export class EmrRecommender extends OptimizerRecommender<EmrChoice> {
  constructor(options: EmrRecommenderOptions) {
    super(
      emrClusterModel({
        nodeTypes: options.nodeTypes,
        costModel: options.costModel ?? createCostModel(options.catalog),
      }),
      options,
    );
  }
}
