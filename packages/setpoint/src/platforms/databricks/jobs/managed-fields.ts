import type { NewClusterSpec } from '../api/schema.js';

/**
 * The `new_cluster` fields Setpoint decides. Everything else in a cluster spec (policy_id,
 * spark_conf, init_scripts, tags, …) belongs to the job's owner and is always sent back untouched.
 */
export const managedTopLevelFields = [
  'node_type_id',
  'driver_node_type_id',
  'num_workers',
  'autoscale',
  'runtime_engine',
] as const;

export const managedAwsAttributes = [
  'availability',
  'first_on_demand',
  'spot_bid_price_percent',
  'ebs_volume_type',
  'ebs_volume_count',
  'ebs_volume_size',
  'ebs_volume_iops',
  'ebs_volume_throughput',
] as const;

export const managedAzureAttributes = ['availability', 'first_on_demand', 'spot_bid_max_price'] as const;

/** Terraform-style attribute paths of every managed field, e.g. for `lifecycle { ignore_changes }`. */
export const managedFieldPaths: string[] = [
  ...managedTopLevelFields,
  ...managedAwsAttributes.map((field) => `aws_attributes.${field}`),
  ...managedAzureAttributes.map((field) => `azure_attributes.${field}`),
];

export type ManagedClusterFields = Pick<NewClusterSpec, (typeof managedTopLevelFields)[number]> & {
  aws_attributes?: Partial<Record<(typeof managedAwsAttributes)[number], string | number | null>>;
  azure_attributes?: Partial<Record<(typeof managedAzureAttributes)[number], string | number | null>>;
};

/** The managed fields of a recommendation's `new_cluster` fragment (or of a whole stored spec). */
export function managedFieldsOf(spec: Record<string, unknown>): ManagedClusterFields {
  const managed: Record<string, unknown> = {};
  for (const field of managedTopLevelFields) if (spec[field] !== undefined) managed[field] = spec[field];
  const pick = (source: unknown, allowed: readonly string[]) => {
    if (!source || typeof source !== 'object') return undefined;
    const picked = Object.fromEntries(Object.entries(source).filter(([key]) => allowed.includes(key)));
    return Object.keys(picked).length ? picked : undefined;
  };
  const aws = pick(spec.aws_attributes, managedAwsAttributes);
  const azure = pick(spec.azure_attributes, managedAzureAttributes);
  if (aws) managed.aws_attributes = aws;
  if (azure) managed.azure_attributes = azure;
  return managed as ManagedClusterFields;
}

/** Values the service fills in on read when a job omits them; they are not a change by anyone. */
const serverDefaults: Record<string, unknown> = {
  'aws_attributes.availability': 'SPOT_WITH_FALLBACK',
  'aws_attributes.first_on_demand': 1,
  'aws_attributes.spot_bid_price_percent': 100,
  'aws_attributes.ebs_volume_count': 0,
  runtime_engine: 'STANDARD',
};

/** The managed fields of a cluster spec as a flat map, with server-filled defaults made explicit. */
export function managedFieldValues(spec: NewClusterSpec): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of managedTopLevelFields) values[field] = spec[field];
  values.driver_node_type_id ??= spec.node_type_id;
  const aws = (spec.aws_attributes ?? {}) as Record<string, unknown>;
  const azure = (spec.azure_attributes ?? {}) as Record<string, unknown>;
  for (const field of managedAwsAttributes) values[`aws_attributes.${field}`] = aws[field];
  for (const field of managedAzureAttributes) values[`azure_attributes.${field}`] = azure[field];
  if (spec.spark_version?.includes('-photon-')) values.runtime_engine ??= 'PHOTON';
  const usesAws = spec.aws_attributes !== undefined || spec.azure_attributes === undefined;
  for (const [path, value] of Object.entries(serverDefaults)) {
    if (path.startsWith('aws_attributes.') && !usesAws) continue;
    values[path] ??= value;
  }
  return values;
}

export interface FieldDifference {
  field: string;
  before: unknown;
  after: unknown;
}

/** A value as JSON with object keys in one order: `autoscale` read back in another order is the same. */
const comparable = (value: unknown): string =>
  JSON.stringify(value, (_key, nested: unknown) =>
    nested && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(Object.entries(nested).sort(([a], [b]) => a.localeCompare(b)))
      : nested,
  );

/** Which managed fields differ between two specs, ignoring server-filled defaults and key order. */
export function diffManagedFields(before: NewClusterSpec, after: NewClusterSpec): FieldDifference[] {
  const a = managedFieldValues(before);
  const b = managedFieldValues(after);
  const differences: FieldDifference[] = [];
  for (const field of managedFieldPaths) {
    if (comparable(a[field]) !== comparable(b[field]))
      differences.push({ field, before: a[field], after: b[field] });
  }
  return differences;
}
