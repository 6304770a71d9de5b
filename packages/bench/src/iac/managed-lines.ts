import {
  managedAwsAttributes,
  managedAzureAttributes,
  managedTopLevelFields,
} from 'setpoint/platforms/databricks/jobs/managed-fields';

/** The attributes (and their blocks) a proposal may change: Databricks' managed cluster fields. */
const databricksManaged = new Set<string>([
  ...managedTopLevelFields,
  'min_workers',
  'max_workers',
  'aws_attributes',
  'azure_attributes',
  ...managedAwsAttributes,
  ...managedAzureAttributes,
]);
/** EMR's: the primary, core and task groups' types, counts, spot bid and volumes. */
const emrManaged = new Set([
  'master_instance_group',
  'core_instance_group',
  'instance_type',
  'instance_count',
  'bid_price',
  'ebs_config',
  'size',
  'type',
  'iops',
  'throughput',
  'volumes_per_instance',
]);

/** The attribute a changed line of HCL or YAML sets ("num_workers = 3", "num_workers: 3", "autoscale {"). */
const attributeOf = (text: string) => /^\s*(?:-\s+)?"?([A-Za-z0-9_]+)"?\s*(?:=|:|\{)/.exec(text)?.[1] ?? null;

/**
 * Lines a unified diff changes, and the bytes of those that touch anything but a managed attribute: a line
 * that sets another attribute, or anything else but a closing brace or a blank line. On EMR, a task group
 * Setpoint adds (`resource "aws_emr_instance_group" …`, whole) is a managed change.
 */
export function bytesOutsideManaged(
  diff: string,
  platform: 'databricks' | 'emr',
): { lines: number; outside: number } {
  const managed = platform === 'databricks' ? databricksManaged : emrManaged;
  let lines = 0;
  let outside = 0;
  let inAddedTaskGroup = false;
  for (const raw of diff.split('\n')) {
    if (!/^[+-]/.test(raw) || /^(\+\+\+|---) /.test(raw)) continue;
    lines += 1;
    const text = raw.slice(1);
    if (platform === 'emr' && raw.startsWith('+') && /^resource "aws_emr_instance_group"/.test(text)) {
      inAddedTaskGroup = true;
      continue;
    }
    if (inAddedTaskGroup && raw.startsWith('+')) {
      if (/^}\s*$/.test(text)) inAddedTaskGroup = false;
      continue;
    }
    if (/^\s*[}\]]?\s*$/.test(text)) continue;
    const attribute = attributeOf(text);
    if (attribute && managed.has(attribute)) continue;
    outside += Buffer.byteLength(`${text}\n`);
  }
  return { lines, outside };
}
