import type { NodeTypeFacts } from '@setpoint/validity/databricks';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { FleetPrior } from '../../../optimizer/fleet-prior.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { FoldedStatistics } from '../../../service/recommendations/learning-summary.js';
import {
  type ClusterModel,
  type ConfidentChoice,
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommendations/optimizer-recommender.js';
import { ReadsByRun } from '../../../service/recommendations/reads-by-run.js';
import type {
  FleetProjectHistory,
  FoldInput,
  RecommendationInput,
  RecommendationOutput,
} from '../../../service/recommendations/recommender.js';
import type { ClusterPolicy } from '../api/schema.js';
import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';
import { parseNewCluster } from '../cluster-shape/parse-configuration.js';
import { performanceModeAdvice } from '../serverless/performance-mode-advice.js';
import { isServerlessRun, serverlessMonitoring } from '../serverless/serverless-monitoring.js';
import { databricksClusterModel, type WorkspaceConstraints } from './databricks-cluster-model.js';
import { keptDimensionsNote } from './kept-dimensions.js';

/** Reads a compute policy of a workspace (`policies/clusters/get`). */
export type ClusterPolicyReader = (workspaceId: string, policyId: string) => Promise<ClusterPolicy>;
/** Reads the node types a workspace can launch (`clusters/list-node-types`), by id; null when it cannot say. */
export type LaunchableNodeTypeReader = (
  workspaceId: string,
) => Promise<ReadonlyMap<string, NodeTypeFacts> | null>;

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
 * The service's recommender on Databricks job clusters: the core recommender over their one shape model.
 * Before recommending it reads what the workspace imposes: the compute policy the based-on run's cluster
 * names (the policy as it is now: jobs/update is checked against it), whose rules become named candidate
 * filters, and the node types the workspace can launch.
 */
export class DatabricksRecommender extends OptimizerRecommender<DatabricksClusterShape> {
  readonly #policies: ClusterPolicyReader | undefined;
  readonly #launchableNodeTypes: LaunchableNodeTypeReader | undefined;
  readonly #shapeOfRun: ClusterModel<DatabricksClusterShape>['shapeOfRun'];
  /** What the workspaces impose on the recommendations in progress, by based-on run. */
  readonly #constraints: ReadsByRun<WorkspaceConstraints>;

  constructor(options: DatabricksRecommenderOptions) {
    const costModel = options.costModel ?? createCostModel(options.catalog);
    const constraints = new ReadsByRun<WorkspaceConstraints>();
    const model = databricksClusterModel({
      catalog: options.catalog,
      nodeTypes: options.nodeTypes,
      costModel,
      constraintsOf: constraints.of,
    });
    super(model, options);
    this.#shapeOfRun = model.shapeOfRun;
    this.#policies = options.policies;
    this.#launchableNodeTypes = options.launchableNodeTypes;
    this.#constraints = constraints;
  }

  override async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (basedOn && isServerlessRun(basedOn))
      return performanceModeAdvice(input) ?? serverlessMonitoring(input);
    return this.#saysWhatIsKept(input, await this.#withConstraints(input, () => super.recommend(input)));
  }

  override recommendNow(input: RecommendationInput, learnedPrior?: FleetPrior): RecommendationOutput {
    return this.#saysWhatIsKept(input, super.recommendNow(input, learnedPrior));
  }

  /** The explanation ends with what Setpoint leaves as the job runs it: the driver and first_on_demand. */
  #saysWhatIsKept(input: RecommendationInput, output: RecommendationOutput): RecommendationOutput {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (!basedOn || isServerlessRun(basedOn)) return output;
    const kept = keptDimensionsNote(this.#shapeOfRun(basedOn, input.project.workspace));
    return { ...output, explanation: `${output.explanation} ${kept}` };
  }

  /** Discover's estimate of a job reads what the workspace imposes, as its recommendation would. */
  override async confidentChoice(input: RecommendationInput): Promise<ConfidentChoice> {
    return this.#withConstraints(input, () => super.confidentChoice(input));
  }

  async #withConstraints<T>(input: RecommendationInput, body: () => Promise<T>): Promise<T> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    const workspaceId = input.project.workspace?.id;
    if (!basedOn || !workspaceId) return body();
    const policyId = parseNewCluster(basedOn.clusterConfig)?.policy_id;
    const constraints = {
      policy:
        typeof policyId === 'string' && this.#policies ? await this.#policies(workspaceId, policyId) : null,
      launchableNodeTypes: this.#launchableNodeTypes ? await this.#launchableNodeTypes(workspaceId) : null,
    };
    return this.#constraints.during(basedOn.id, constraints, body);
  }

  /** Serverless runs have no cluster to learn candidates from: their summary stays as it is. */
  override async fold(input: FoldInput): Promise<FoldedStatistics> {
    if (input.runs.some(isServerlessRun)) return input.folded;
    return super.fold(input);
  }

  /** A serverless job teaches the fleet prior nothing about clusters. */
  override fleetJobOf(history: FleetProjectHistory) {
    if (history.runs.some(isServerlessRun)) return null;
    return super.fleetJobOf(history);
  }
}
