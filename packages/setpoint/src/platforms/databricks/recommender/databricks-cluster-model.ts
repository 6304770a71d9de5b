import type { NodeTypeFacts } from '@setpoint/validity/databricks';
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
import { photonSpeedupPriorOf } from '../cluster-shape/photon-trial.js';

/** What a workspace imposes on the clusters recommended there, read before recommending. */
export interface WorkspaceConstraints {
  /** The compute policy the based-on run's cluster names, when it names one. */
  policy: ClusterPolicy | null;
  /** The node types the workspace can launch, by id; null when not read. */
  launchableNodeTypes: ReadonlyMap<string, NodeTypeFacts> | null;
}

/** Databricks job clusters as the recommender sees them: one shape model, parsed once per run. */
export function databricksClusterModel(deps: {
  catalog: PriceCatalog;
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
  /** What the workspace imposes on a recommendation made after this run, when it was read. */
  constraintsOf?: (run: RecommenderRun) => WorkspaceConstraints | null;
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
      const constraints = deps.constraintsOf?.(basedOn) ?? null;
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
          policy: constraints?.policy ?? null,
          launchableNodeTypes: constraints?.launchableNodeTypes ?? null,
          instancePoolId: typeof poolId === 'string' ? poolId : null,
          baseCluster: spec,
          sparkVersion: spec?.spark_version ?? null,
          photonSpeedup: photonSpeedupPriorOf(basedOn.profile),
          diskEvidence: {
            diskSpillBytes: basedOn.profile.totals.diskBytesSpilled,
            shuffleWriteBytes: basedOn.profile.totals.shuffleWriteBytes,
          },
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
