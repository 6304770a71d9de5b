import type { ClusterFragment } from '@setpoint/api-contract/databricks';
import type { NewClusterSpec } from '../api/schema.js';
import { withManagedFields } from '../jobs/apply-cluster-change.js';
import { managedFieldValues } from '../jobs/managed-fields.js';
import { availabilityOf, type DatabricksClusterShape } from './cluster-shape.js';

/**
 * The `new_cluster` fields apply writes for a shape: only fields Setpoint manages. Given the cluster the
 * job runs on (`against`), a field that cluster leaves unset is written only when leaving it out would
 * not give the shape: a job that never named `runtime_engine` and stays on the standard engine gets no
 * `runtime_engine: STANDARD`, so the fragment (and every diff read from it) holds changes only.
 */
export function jobFragmentOf(
  shape: DatabricksClusterShape,
  against?: NewClusterSpec | null,
): ClusterFragment {
  const fragment = fullFragmentOf(shape);
  if (!against) return fragment;
  if (shape.market === 'on-demand') {
    // every node is on-demand whatever `first_on_demand` says: the job's own value (or none) stays
    const key = shape.cloud === 'azure' ? 'azure_attributes' : 'aws_attributes';
    const attributes = fragment[key] as Record<string, string | number | null>;
    const stated = against[key]?.first_on_demand;
    if (stated === undefined) delete attributes.first_on_demand;
    else attributes.first_on_demand = stated;
  }
  const reduced = withoutImpliedFields(fragment, against);
  return typeof against.instance_pool_id === 'string' ? withoutPoolFields(reduced) : reduced;
}

/**
 * A cluster on an instance pool takes its node types and market from the pool (the candidates keep them,
 * see `instancePoolFilter`): writing them would name a node type next to the pool, which jobs/update refuses.
 */
function withoutPoolFields(fragment: ClusterFragment): ClusterFragment {
  const {
    node_type_id: _node,
    driver_node_type_id: _driver,
    aws_attributes,
    azure_attributes,
    ...rest
  } = fragment;
  return rest;
}

function fullFragmentOf(shape: DatabricksClusterShape): ClusterFragment {
  const fragment: ClusterFragment = {
    node_type_id: shape.workerNodeType,
    driver_node_type_id: shape.driverNodeType,
    runtime_engine: shape.photon ? 'PHOTON' : 'STANDARD',
  };
  if (shape.autoscale) {
    fragment.autoscale = { min_workers: shape.autoscale.minWorkers, max_workers: shape.autoscale.maxWorkers };
  } else {
    fragment.num_workers = shape.workers;
  }
  const attributes = {
    availability: availabilityOf(shape.market, shape.cloud),
    first_on_demand: shape.firstOnDemand,
    ...(shape.storage && {
      ebs_volume_type: shape.storage.volumeType,
      ebs_volume_count: shape.storage.count,
      ebs_volume_size: shape.storage.sizeGib,
    }),
  };
  if (shape.cloud === 'azure') fragment.azure_attributes = attributes;
  else fragment.aws_attributes = attributes;
  return fragment;
}

/** The managed values a cluster ends up with once `fragment` is merged into `spec` (defaults made explicit). */
function effectiveValues(spec: NewClusterSpec, fragment: ClusterFragment): string {
  return JSON.stringify(
    managedFieldValues(withManagedFields(spec, fragment, { maintainScalingType: false, readOnly: true })),
  );
}

const attributeKeys = ['aws_attributes', 'azure_attributes'] as const;

/** Drops each field `spec` does not set whose absence merges to the same cluster (a default, or implied). */
function withoutImpliedFields(fragment: ClusterFragment, spec: NewClusterSpec): ClusterFragment {
  const target = effectiveValues(spec, fragment);
  let reduced: ClusterFragment = structuredClone(fragment);
  const sameWithout = (candidate: ClusterFragment) => effectiveValues(spec, candidate) === target;
  for (const key of Object.keys(fragment) as (keyof ClusterFragment)[]) {
    if (attributeKeys.includes(key as (typeof attributeKeys)[number]) || spec[key] !== undefined) continue;
    const candidate = { ...reduced };
    delete candidate[key];
    if (sameWithout(candidate)) reduced = candidate;
  }
  for (const key of attributeKeys) {
    const attributes = reduced[key];
    if (!attributes) continue;
    const stated = (spec[key] ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(attributes)) {
      if (stated[name] !== undefined) continue;
      const rest = { ...(reduced[key] as Record<string, string | number | null>) };
      delete rest[name];
      const candidate: ClusterFragment = { ...reduced, [key]: rest };
      if (Object.keys(rest).length === 0) delete candidate[key];
      if (sameWithout(candidate)) reduced = candidate;
    }
  }
  return reduced;
}
