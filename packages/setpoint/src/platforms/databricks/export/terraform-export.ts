import { type HclBlock, type HclValue, writeHclBlock } from '../../../export/hcl-writer.js';
import type { JobClusterRef } from '../jobs/job-clusters.js';
import {
  type ManagedClusterFields,
  managedAwsAttributes,
  managedAzureAttributes,
  managedTopLevelFields,
} from '../jobs/managed-fields.js';

export interface TerraformExportInput {
  /** The Terraform resource name of the job, e.g. `databricks_job.orders_nightly`'s `orders_nightly`. */
  resourceName: string;
  ref: JobClusterRef;
  /** Position of the job cluster (or task) in the job's list, which Terraform paths index by. */
  position: number;
  cluster: ManagedClusterFields;
  header: string[];
}

/** Terraform paths of the managed fields inside the job's `job_cluster` or `task` block. */
export function ignoreChangesPaths(ref: JobClusterRef, position: number): string[] {
  const prefix = `${ref.kind === 'job_cluster' ? 'job_cluster' : 'task'}[${position}].new_cluster[0]`;
  return [
    ...managedTopLevelFields.map((field) => `${prefix}.${field}`),
    ...managedAwsAttributes.map((field) => `${prefix}.aws_attributes[0].${field}`),
    ...managedAzureAttributes.map((field) => `${prefix}.azure_attributes[0].${field}`),
  ];
}

function attributesBlock(
  type: string,
  values: Record<string, string | number | null> | undefined,
): HclBlock[] {
  const entries = Object.entries(values ?? {}).filter(
    (entry): entry is [string, string | number] => entry[1] !== null && entry[1] !== undefined,
  );
  return entries.length ? [{ type, attributes: entries }] : [];
}

/**
 * The `new_cluster` block with Setpoint's recommended values, inside the job cluster (or task) it
 * belongs to, plus a `lifecycle.ignore_changes` listing exactly the fields Setpoint manages, so
 * `terraform apply` and Setpoint do not undo each other.
 */
export function exportTerraform(input: TerraformExportInput): string {
  const cluster = input.cluster;
  const scalars: [string, HclValue][] = [];
  for (const field of managedTopLevelFields) {
    const value = cluster[field];
    if (typeof value === 'string' || typeof value === 'number') scalars.push([field, value]);
  }
  const newCluster: HclBlock = {
    type: 'new_cluster',
    attributes: scalars,
    blocks: [
      ...(cluster.autoscale
        ? [
            {
              type: 'autoscale',
              attributes: [
                ['min_workers', cluster.autoscale.min_workers],
                ['max_workers', cluster.autoscale.max_workers],
              ] as [string, HclValue][],
            },
          ]
        : []),
      ...attributesBlock('aws_attributes', cluster.aws_attributes),
      ...attributesBlock('azure_attributes', cluster.azure_attributes),
    ],
  };
  const owner: HclBlock =
    input.ref.kind === 'job_cluster'
      ? {
          type: 'job_cluster',
          attributes: [['job_cluster_key', input.ref.jobClusterKey]],
          blocks: [newCluster],
        }
      : { type: 'task', attributes: [['task_key', input.ref.taskKey]], blocks: [newCluster] };
  const lifecycle: HclBlock = {
    type: 'lifecycle',
    comments: ['Setpoint manages these fields; Terraform keeps everything else.'],
    attributes: [['ignore_changes', ignoreChangesPaths(input.ref, input.position).map((raw) => ({ raw }))]],
  };
  const resource: HclBlock = {
    type: 'resource',
    labels: ['databricks_job', input.resourceName],
    comments: input.header,
    blocks: [owner, lifecycle],
  };
  return `${writeHclBlock(resource)}\n`;
}
