import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { FleetPrior } from '../../../optimizer/fleet-prior.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { ClusterModel } from '../../../service/recommender/cluster-model.js';
import type { FoldedStatistics } from '../../../service/recommender/learning-summary.js';
import {
  type ConfidentChoice,
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
import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';
import { performanceModeAdvice } from '../serverless/performance-mode-advice.js';
import { isServerlessRun, serverlessMonitoring } from '../serverless/serverless-monitoring.js';
import {
  type ClusterPolicyReader,
  databricksClusterModel,
  type LaunchableNodeTypeReader,
  type WorkspaceConstraints,
} from './databricks-cluster-model.js';
import { keptDimensionsNote } from './kept-dimensions.js';

export interface DatabricksRecommenderOptions extends OptimizerRecommenderOptions {
  catalog: PriceCatalog;
  /** Instance types of the catalog (shipped and imported layers). */
  nodeTypes: readonly InstanceTypeEntry[];
  costModel?: CostModel;
  /** Where the job cluster's compute policy is read; without it, policies are not applied. */
  policies?: ClusterPolicyReader;
  /** Where the workspace's node types are read; without it, every priced node type may be recommended. */
  launchableNodeTypes?: LaunchableNodeTypeReader;
}

/**
 * The service's recommender on Databricks jobs: a job's serverless runs get the performance-mode advice;
 * its cluster runs the core recommender over the job-cluster model (`databricksClusterModel`, which reads
 * what the workspace imposes before recommending).
 */
export class DatabricksRecommender implements Recommender {
  readonly #clusters: OptimizerRecommender<DatabricksClusterShape, WorkspaceConstraints>;
  readonly #shapeOfRun: ClusterModel<DatabricksClusterShape>['shapeOfRun'];

  constructor(options: DatabricksRecommenderOptions) {
    const model = databricksClusterModel({
      catalog: options.catalog,
      nodeTypes: options.nodeTypes,
      costModel: options.costModel ?? createCostModel(options.catalog),
      policies: options.policies,
      launchableNodeTypes: options.launchableNodeTypes,
    });
    this.#clusters = new OptimizerRecommender(model, options);
    this.#shapeOfRun = model.shapeOfRun;
  }

  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (basedOn && isServerlessRun(basedOn))
      return performanceModeAdvice(input) ?? serverlessMonitoring(input);
    return this.#saysWhatIsKept(input, await this.#clusters.recommend(input));
  }

  /** Discover's estimate of a job: what its cluster recommendation would be confident in. */
  confidentChoice(input: RecommendationInput): Promise<ConfidentChoice> {
    return this.#clusters.confidentChoice(input);
  }

  /** The cluster recommendation synchronously, with nothing read from a workspace (the simulated bench). */
  recommendNow(input: RecommendationInput, learnedPrior?: FleetPrior): RecommendationOutput {
    return this.#saysWhatIsKept(input, this.#clusters.recommendNow(input, learnedPrior));
  }

  /** The explanation ends with what Setpoint leaves as the job runs it: the driver and first_on_demand. */
  #saysWhatIsKept(input: RecommendationInput, output: RecommendationOutput): RecommendationOutput {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (!basedOn || isServerlessRun(basedOn)) return output;
    const kept = keptDimensionsNote(this.#shapeOfRun(basedOn, input.project.workspace));
    return { ...output, explanation: `${output.explanation} ${kept}` };
  }

  fold(input: FoldInput): Promise<FoldedStatistics> {
    return this.#clusters.fold(input);
  }

  fleetJobOf(history: FleetProjectHistory) {
    return this.#clusters.fleetJobOf(history);
  }
}
