import { ValidationError } from '@setpoint/foundation/errors';
import type { ClusterTimeline, TimelineNode } from '../../../cost/run-cost.js';
import type { VolumeSpec } from '../../../pricing/price-catalog.js';
import type { EmrVolume } from '../cluster-shape/emr-cluster-shape.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';
import { emrBilling } from './emr-billing.js';

/** EMR's root volume when `EbsRootVolumeSize` is not set, GiB; priced as gp2. */
export const defaultRootVolumeGb = 15;
const rootVolumeType = 'gp2';

/** Identical volumes of an instance as the price catalog counts them. */
export function volumeSpecs(volumes: readonly EmrVolume[], rootVolumeGb: number | null): VolumeSpec[] {
  const specs: VolumeSpec[] = [];
  const all: EmrVolume[] = [
    { volumeType: rootVolumeType, sizeGb: rootVolumeGb ?? defaultRootVolumeGb },
    ...volumes,
  ];
  for (const volume of all) {
    const same = specs.find(
      (spec) =>
        spec.type === volume.volumeType &&
        spec.sizeGb === volume.sizeGb &&
        spec.iops === volume.iops &&
        spec.throughputMibps === volume.throughputMibps,
    );
    if (same) same.count += 1;
    else
      specs.push({
        type: volume.volumeType,
        sizeGb: volume.sizeGb,
        count: 1,
        ...(volume.iops === undefined ? {} : { iops: volume.iops }),
        ...(volume.throughputMibps === undefined ? {} : { throughputMibps: volume.throughputMibps }),
      });
  }
  return specs;
}

/** The window a run is charged for: the cluster's life or the step's. */
export function billingWindow(report: EmrRunReport): { startMs: number; endMs: number } {
  const [start, end] =
    report.scope === 'cluster'
      ? [report.cluster.createdAt, report.cluster.endedAt]
      : [report.step.startedAt, report.step.endedAt];
  if (start === null || end === null)
    throw new ValidationError(
      'EMR_RUN_NOT_FINISHED',
      `the ${report.scope === 'cluster' ? `cluster ${report.cluster.id}` : `step ${report.step.id}`} has not ended: it cannot be priced yet`,
    );
  return { startMs: start, endMs: end };
}

/**
 * The Spark application's span inside the billing window: what the run's runtime measures, the part of
 * its cost that scales with it. The event log's start and end where they fall in the window, else the
 * step's; null when neither is known.
 */
export function applicationWindow(
  report: EmrRunReport,
  application: { startTime: number | null; endTime: number | null },
): { startMs: number; endMs: number } | null {
  const billed = billingWindow(report);
  const clip = (startMs: number | null, endMs: number | null) => {
    if (startMs === null || endMs === null) return null;
    const window = { startMs: Math.max(startMs, billed.startMs), endMs: Math.min(endMs, billed.endMs) };
    return window.endMs > window.startMs ? window : null;
  };
  return clip(application.startTime, application.endTime) ?? clip(report.step.startedAt, report.step.endedAt);
}

/**
 * Every instance's billed span inside the window (each from its own `ListInstances` timeline): EC2 and the
 * EMR fee by instance type and market, and its volumes (root and EBS block devices). The window is the
 * run's billing window unless another is given (the application's, to split the cost).
 */
export function emrClusterTimeline(
  report: EmrRunReport,
  window: { startMs: number; endMs: number } = billingWindow(report),
): ClusterTimeline {
  const nodes: TimelineNode[] = [];
  for (const instance of report.instances) {
    const startMs = Math.max(instance.createdAt, window.startMs);
    const endMs = Math.min(instance.endedAt ?? window.endMs, window.endMs);
    if (endMs <= startMs) continue;
    nodes.push({
      role: instance.role === 'MASTER' ? 'driver' : 'worker',
      nodeType: instance.instanceType,
      startMs,
      endMs,
      market: instance.market === 'SPOT' ? 'spot' : 'on-demand',
      volumes: volumeSpecs(instance.volumes, report.cluster.rootVolumeGb),
    });
  }
  if (nodes.length === 0)
    throw new ValidationError(
      'EMR_NO_INSTANCES',
      `cluster ${report.cluster.id} had no instance running during the run`,
    );
  return { cloud: 'aws', region: report.region, billing: emrBilling, nodes };
}
