import type { VolumeSpec } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';

/**
 * EBS volumes Setpoint attaches to each node of a candidate whose node type has no instance store (AWS
 * m5, c5, r5…): Databricks fails to launch such a cluster without one (`ebs-only-node-storage`), and spill
 * and shuffle files land on them. General purpose SSD (gp3 on Databricks), at its baseline performance.
 */
export interface EbsStorage {
  volumeType: 'GENERAL_PURPOSE_SSD';
  /** Volumes per node. */
  count: number;
  /** Each volume's size in GiB. */
  sizeGib: number;
  /** What it was sized from, for the explanation. */
  basis: string;
}

/** What a job's runs wrote to local disk: spill and shuffle output, summed over the run. */
export interface DiskEvidence {
  diskSpillBytes: number;
  shuffleWriteBytes: number;
}

/** GENERAL_PURPOSE_SSD volumes are 100–4096 GiB, at most 10 per node (the validity contract's `ebs-volumes`). */
const sizeRange = { min: 100, max: 4096 };
const maxVolumes = 10;
/** Sizes go up in steps of this many GiB. */
const sizeStep = 50;
/**
 * Room over what a node wrote in the run: spill and shuffle files of one stage are on disk while the next
 * reads them, and a run's data grows.
 */
export const ebsHeadroom = 2;
const gib = 1024 ** 3;

/** Whether a candidate on this node type needs attached volumes to launch (AWS, no instance store). */
export function needsAttachedStorage(entry: InstanceTypeEntry | undefined): boolean {
  return entry !== undefined && entry.cloud === 'aws' && entry.localNvmeGb === 0;
}

/**
 * The EBS volumes for each of `nodes` nodes: the run's spill and shuffle output spread over the workers,
 * with `ebsHeadroom`, at least the smallest volume; split over several volumes beyond the largest.
 */
export function ebsStorageFor(evidence: DiskEvidence, workers: number): EbsStorage {
  // a profile without a metric (an agentless run) wrote nothing Setpoint knows of
  const spilled = bytesOrNone(evidence.diskSpillBytes);
  const shuffled = bytesOrNone(evidence.shuffleWriteBytes);
  const written = spilled + shuffled;
  const perNodeGib = (written / Math.max(1, workers) / gib) * ebsHeadroom;
  const count = Math.min(maxVolumes, Math.max(1, Math.ceil(perNodeGib / sizeRange.max)));
  const size = Math.ceil(perNodeGib / count / sizeStep) * sizeStep;
  const sizeGib = Math.min(sizeRange.max, Math.max(sizeRange.min, size));
  const perNodeWritten = perNodeGib / ebsHeadroom;
  return {
    volumeType: 'GENERAL_PURPOSE_SSD',
    count,
    sizeGib,
    // no comma: a cluster's description lists its parts with ", "
    basis: `no local disk; the run spilled and shuffled ${perNodeWritten.toFixed(1)} GiB a node on ${workers} nodes; ×${ebsHeadroom}${perNodeGib < sizeRange.min ? ` and at least ${sizeRange.min} GiB` : ''}`,
  };
}

function bytesOrNone(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** The volumes as the cost engine prices them: GENERAL_PURPOSE_SSD is a gp3 volume on Databricks. */
export function volumesOf(storage: EbsStorage | null | undefined): VolumeSpec[] {
  return storage ? [{ type: 'gp3', sizeGb: storage.sizeGib, count: storage.count }] : [];
}

/** "1 × 100 GiB EBS per node". */
export function describeStorage(storage: EbsStorage): string {
  return `${storage.count} × ${storage.sizeGib} GiB EBS per node`;
}
