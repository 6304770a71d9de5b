import type { ClusterSpec as CostClusterSpec, Market } from '../../../cost/cluster-spec.js';
import type { Cloud, ComputeType, Plan } from '../../../pricing/schema.js';
import type { ClusterSpec } from '../api/schema.js';
import { clusterTraits } from '../jobs/job-clusters.js';

const plans: Record<string, Plan> = { standard: 'standard', premium: 'premium', enterprise: 'enterprise' };
const computeTypes: Record<string, ComputeType> = {
  'jobs compute': 'jobs',
  'jobs compute light': 'jobs-light',
  'all-purpose compute': 'all-purpose',
};

/** A Databricks `new_cluster` as the cost engine prices it. */
export function costSpecOf(
  spec: ClusterSpec,
  workspace: { cloud: string; region: string | null; planType: string | null },
  compute: ComputeType = 'jobs',
): CostClusterSpec {
  const cloud: Cloud = workspace.cloud === 'azure' ? 'azure' : 'aws';
  const attributes = (spec.aws_attributes ?? spec.azure_attributes ?? {}) as Record<string, unknown>;
  const availability = String(attributes.availability ?? 'ON_DEMAND');
  const market: Market = availability.startsWith('SPOT_WITH_FALLBACK')
    ? 'spot-with-fallback'
    : availability.startsWith('SPOT')
      ? 'spot'
      : 'on-demand';
  const workerNodeType = spec.node_type_id ?? 'unknown';
  return {
    cloud,
    region: workspace.region ?? (cloud === 'azure' ? 'eastus' : 'us-east-1'),
    billing: {
      platform: 'databricks',
      plan: plans[(workspace.planType ?? 'premium').toLowerCase()] ?? 'premium',
      compute,
      photon: clusterTraits(spec).photon,
    },
    driverNodeType: spec.driver_node_type_id ?? workerNodeType,
    workerNodeType,
    market,
    firstOnDemand: Number(attributes.first_on_demand ?? 1),
    volumesPerNode: [],
  };
}

export function computeTypeOf(label: string | null): ComputeType {
  return computeTypes[(label ?? '').toLowerCase()] ?? 'jobs';
}
