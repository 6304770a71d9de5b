import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import {
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommendations/optimizer-recommender.js';
import type {
  RecommendationInput,
  RecommendationOutput,
  RecommenderRun,
} from '../../../service/recommendations/recommender.js';
import type { ClusterPolicy } from '../api/schema.js';
import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';
import { parseNewCluster } from '../cluster-shape/parse-configuration.js';
import { databricksClusterModel } from './databricks-cluster-model.js';

/** Reads a compute policy of a workspace (`policies/clusters/get`). */
export type ClusterPolicyReader = (workspaceId: string, policyId: string) => Promise<ClusterPolicy>;

export interface DatabricksRecommenderOptions extends OptimizerRecommenderOptions {
  catalog: PriceCatalog;
  /** Instance types of the catalog (shipped and imported layers). */
  nodeTypes: readonly InstanceTypeEntry[];
  costModel?: CostModel;
  /** Where the job cluster's compute policy is read; without it, policies are not applied. */
  policies?: ClusterPolicyReader;
}

/**
 * The service's recommender on Databricks job clusters: the core recommender over their one shape model.
 * Before recommending it reads the compute policy the based-on run's cluster names (the policy as it is
 * now: jobs/update is checked against it), whose rules become named candidate filters.
 */
export class DatabricksRecommender extends OptimizerRecommender<DatabricksClusterShape> {
  readonly #policies: ClusterPolicyReader | undefined;
  /** Policies read for the recommendations in progress, by based-on run. */
  readonly #policyByRun: Map<string, ClusterPolicy>;

  constructor(options: DatabricksRecommenderOptions) {
    const costModel = options.costModel ?? createCostModel(options.catalog);
    const policyByRun = new Map<string, ClusterPolicy>();
    super(
      databricksClusterModel({
        catalog: options.catalog,
        nodeTypes: options.nodeTypes,
        costModel,
        policyOf: (run: RecommenderRun) => policyByRun.get(run.id) ?? null,
      }),
      options,
    );
    this.#policies = options.policies;
    this.#policyByRun = policyByRun;
  }

  override async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    const policyId = basedOn ? parseNewCluster(basedOn.clusterConfig)?.policy_id : undefined;
    const workspaceId = input.project.workspace?.id;
    if (!basedOn || typeof policyId !== 'string' || !workspaceId || !this.#policies)
      return super.recommend(input);
    this.#policyByRun.set(basedOn.id, await this.#policies(workspaceId, policyId));
    try {
      return await super.recommend(input);
    } finally {
      this.#policyByRun.delete(basedOn.id);
    }
  }
}
