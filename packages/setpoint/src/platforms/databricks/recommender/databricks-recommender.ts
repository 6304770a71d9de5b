import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import {
  OptimizerRecommender,
  type OptimizerRecommenderOptions,
} from '../../../service/recommendations/optimizer-recommender.js';
import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';
import { databricksClusterModel } from './databricks-cluster-model.js';

export interface DatabricksRecommenderOptions extends OptimizerRecommenderOptions {
  catalog: PriceCatalog;
  /** Instance types of the catalog (shipped and imported layers). */
  nodeTypes: readonly InstanceTypeEntry[];
  costModel?: CostModel;
}

/** The service's recommender on Databricks job clusters: the core recommender over their one shape model. */
export class DatabricksRecommender extends OptimizerRecommender<DatabricksClusterShape> {
  constructor(options: DatabricksRecommenderOptions) {
    const costModel = options.costModel ?? createCostModel(options.catalog);
    super(
      databricksClusterModel({ catalog: options.catalog, nodeTypes: options.nodeTypes, costModel }),
      options,
    );
  }
}
