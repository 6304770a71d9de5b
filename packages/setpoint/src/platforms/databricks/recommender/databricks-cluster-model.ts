import type { NodeTypeFacts } from '@setpoint/validity/databricks';
import type { CostModel } from '../../../cost/cost-model.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import { defaultRegions } from '../../../pricing/regions.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';
import type { ClusterModel } from '../../../service/recommender/cluster-model.js';
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
import { isServerlessRun } from '../serverless/serverless-monitoring.js';

/** Reads a compute policy of a workspace (`policies/clusters/get`). */
export type ClusterPolicyReader = (workspaceId: string, policyId: string) => Promise<ClusterPolicy>;
/** Reads the node types a workspace can launch (`clusters/list-node-types`), by id; null when it cannot say. */
export type LaunchableNodeTypeReader = (
  workspaceId: string,
) => Promise<ReadonlyMap<string, NodeTypeFacts> | null>;

/** What a workspace imposes on the clusters recommended there, read before recommending. */
export interface WorkspaceConstraints {
  /** The compute policy the based-on run's cluster names, when it names one. */
  policy: ClusterPolicy | null;
  /** The node types the workspace can launch, by id; null when not read. */
  launchableNodeTypes: ReadonlyMap<string, NodeTypeFacts> | null;
}

/**
 * Databricks job clusters as the recommender sees them: one shape model, parsed once per run. Before
 * recommending it reads what the workspace imposes: the compute policy the based-on run's cluster names
 * (the policy as it is now: jobs/update is checked against it), whose rules become named candidate
 * filters, and the node types the workspace can launch. A serverless run has no cluster.
 */
export function databricksClusterModel(deps: {
  catalog: PriceCatalog;
  nodeTypes: readonly InstanceTypeEntry[];
  costModel: CostModel;
  /** Where the job cluster's compute policy is read; without it, policies are not applied. */
  policies?: ClusterPolicyReader | undefined;
  /** Where the workspace's node types are read; without it, every priced node type may be recommended. */
  launchableNodeTypes?: LaunchableNodeTypeReader | undefined;
}): ClusterModel<DatabricksClusterShape, WorkspaceConstraints> {
  return {
    async prepare(input, basedOn) {
      const workspaceId = input.project.workspace?.id;
      if (!workspaceId) return null;
      const policyId = parseNewCluster(basedOn.clusterConfig)?.policy_id;
      return {
        policy:
          typeof policyId === 'string' && deps.policies ? await deps.policies(workspaceId, policyId) : null,
        launchableNodeTypes: deps.launchableNodeTypes ? await deps.launchableNodeTypes(workspaceId) : null,
      };
    },
    clusterless: isServerlessRun,
    shapeOfRun(run, workspace) {
      const cloud = cloudOf(run.cluster.cloud, workspace?.cloud);
      return shapeOfCluster(
        parseNewCluster(run.clusterConfig),
        cloud,
        run.cluster,
        run.profile.executors.maxConcurrent,
      );
    },
    shapeThatRan(run, configured) {
      const ran = run.cluster.ranOn;
      if (!ran) return configured;
      // an alternate the catalog does not know is learned as the configured type (the closest it knows)
      const known = (nodeType: string | null) =>
        nodeType &&
        deps.nodeTypes.some((entry) => entry.cloud === configured.cloud && entry.instanceType === nodeType)
          ? nodeType
          : null;
      return {
        ...configured,
        workerNodeType: known(ran.nodeTypeId) ?? configured.workerNodeType,
        driverNodeType: known(ran.driverNodeTypeId) ?? configured.driverNodeType,
      };
    },
    shapeId,
    candidateSpace({ basedOn, workspace, settings, current, observed, reads }) {
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
          policy: reads?.policy ?? null,
          launchableNodeTypes: reads?.launchableNodeTypes ?? null,
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
