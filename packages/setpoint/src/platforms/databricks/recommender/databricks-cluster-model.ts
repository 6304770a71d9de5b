import type { CostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import { defaultRegions } from '../../../pricing/regions.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { ClusterModel } from '../../../service/recommendations/optimizer-recommender.js';
import type { RecommenderRun } from '../../../service/recommendations/recommender.js';
import type { ClusterPolicy } from '../api/schema.js';
import { cloudOf, planOf } from '../cluster-shape/billing.js';
import { buildCandidateSpace } from '../cluster-shape/candidates.js';
import {
  type DatabricksClusterShape,
  describeShape,
  shapeId,
  shapeOfCluster,
} from '../cluster-shape/cluster-shape.js';
import { jobFragmentOf } from '../cluster-shape/job-fragment.js';
import { parseNewCluster } from '../cluster-shape/parse-configuration.js';

/** Databricks job clusters as the recommender sees them: one shape model, parsed once per run. */
export function databricksClusterModel(deps: {
  catalog: PriceCatalog;
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
  /** The compute policy of the cluster a run used, when it names one and it was read. */
  policyOf?: (run: RecommenderRun) => ClusterPolicy | null;
}): ClusterModel<DatabricksClusterShape> {
  return {
    shapeOfRun(run, workspace) {
      const cloud = cloudOf(run.cluster.cloud, workspace?.cloud);
      return shapeOfCluster(
        parseNewCluster(run.clusterConfig),
        cloud,
        run.cluster,
        run.profile.executors.maxConcurrent,
      );
    },
    shapeId,
    candidateSpace({ basedOn, workspace, settings, current, observed }) {
      const region = basedOn.cluster.region ?? workspace?.region ?? defaultRegions[current.cloud];
      const spec = parseNewCluster(basedOn.clusterConfig);
      const poolId = spec?.instance_pool_id;
      return buildCandidateSpace(
        deps.catalog,
        deps.nodeTypes,
        {
          cloud: current.cloud,
          region,
          plan: planOf(workspace?.planType),
          settings,
          current,
          observed,
          policy: deps.policyOf?.(basedOn) ?? null,
          instancePoolId: typeof poolId === 'string' ? poolId : null,
          sparkVersion: spec?.spark_version ?? null,
        },
        deps.costModel,
      );
    },
    onDemandTwin: (shape) =>
      shape.market === 'on-demand' ? null : { ...shape, market: 'on-demand', firstOnDemand: 0 },
    configurationOf: (shape, current) => jobFragmentOf(shape, parseNewCluster(current)),
    priceKind: (shape) =>
      `${shape.autoscale ? 'autoscaled' : 'fixed'}|${shape.market}|${shape.photon ? 'photon' : 'standard'}`,
    describe: describeShape,
  };
}
