import { gp3Limits } from '@setpoint/validity/databricks';
import type { VolumeSpec } from '../../../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../../../pricing/schema.js';

const mib = 1024 ** 2;
const gib = 1024 ** 3;

/** What the based-on run moved through its nodes' local disks, and how long its jobs ran. */
export interface DiskTraffic {
  /** Spill written to disk (read back once). */
  diskSpillBytes: number;
  shuffleWriteBytes: number;
  /** Shuffle read: every byte comes off some node's disk once. */
  shuffleReadBytes: number;
  /** Time with at least one job running (the profile's executor time). */
  executorTimeMs: number;
  /** Worker nodes the run had at its widest. */
  nodes: number;
}

/**
 * A run whose disks at their throughput needed this share of its job time, or more, to move what it wrote
 * and read back was disk-bound: its gp3 volumes get more throughput.
 */
export const diskBoundShare = 0.25;
/** The throughput bought is what would move the run's disk traffic in this share of its job time. */
const targetDiskShare = 0.1;
/** Throughput is bought in steps of this many MiB/s. */
const throughputStep = 25;
/**
 * A node reaches its EBS volumes at most at its instance's EBS bandwidth: AWS's EBS-optimized baseline of
 * the 5th-generation general purpose, compute and memory types (Amazon EC2 User Guide, "Amazon
 * EBS-optimized instance types"; m5.large 650 Mbps, m5.xlarge 1,150, m5.2xlarge 2,300, m5.4xlarge 4,750,
 * m5.8xlarge 6,800, m5.12xlarge 9,500, m5.16xlarge 13,600, m5.24xlarge 19,000), by vCPUs; between two sizes
 * the smaller's. Throughput beyond it would be paid for and never used.
 */
const ebsBaselineMbpsByVcpus: ReadonlyArray<readonly [number, number]> = [
  [2, 650],
  [4, 1150],
  [8, 2300],
  [16, 4750],
  [32, 6800],
  [48, 9500],
  [64, 13_600],
  [96, 19_000],
];

export function instanceEbsMibps(entry: Pick<InstanceTypeEntry, 'vcpus'>): number {
  let mbps = ebsBaselineMbpsByVcpus[0]![1];
  for (const [vcpus, baseline] of ebsBaselineMbpsByVcpus) if (entry.vcpus >= vcpus) mbps = baseline;
  return (mbps * 1e6) / 8 / mib;
}

/** gp3 throughput and IOPS per volume for a disk-bound run, and why. */
export interface Gp3Performance {
  throughputMibps: number;
  iops: number;
  basis: string;
}

/**
 * More gp3 throughput for `count` volumes a node on `entry`, when the based-on run was disk-bound on the
 * throughput it had (`throughputNowMibps` a node): enough to move its traffic in a tenth of its job time,
 * within gp3's 125–1000 MiB/s a volume and the instance's EBS bandwidth, in 25 MiB/s steps; IOPS raised to
 * what gp3 requires of that throughput (at most 0.25 MiB/s per IOPS; 3000–16000). Null when the run was not
 * disk-bound, or when the node could not use more than it had.
 */
export function gp3PerformanceFor(
  traffic: DiskTraffic,
  throughputNowMibps: number,
  entry: Pick<InstanceTypeEntry, 'vcpus'>,
  count: number,
): Gp3Performance | null {
  const perNodeBytes = diskBytesPerNode(traffic);
  const seconds = traffic.executorTimeMs / 1000;
  if (!(perNodeBytes > 0) || !(seconds > 0) || !(throughputNowMibps > 0)) return null;
  const busyShare = perNodeBytes / mib / throughputNowMibps / seconds;
  if (busyShare < diskBoundShare) return null;
  const wanted = perNodeBytes / mib / (targetDiskShare * seconds);
  const nodeCap = Math.min(instanceEbsMibps(entry), count * gp3Limits.maxThroughput);
  const perVolume = Math.floor(Math.min(wanted, nodeCap) / count / throughputStep) * throughputStep;
  const throughputMibps = Math.min(gp3Limits.maxThroughput, perVolume);
  if (throughputMibps * count <= throughputNowMibps || throughputMibps <= gp3Limits.minThroughput)
    return null;
  const iops = Math.min(
    gp3Limits.maxIops,
    Math.max(gp3Limits.minIops, Math.ceil(throughputMibps / gp3Limits.throughputPerIops)),
  );
  return {
    throughputMibps,
    iops,
    // no comma: a cluster's description lists its parts with ", "
    basis: `the run moved ${(perNodeBytes / gib).toFixed(1)} GiB a node through its disks: ${(busyShare * 100).toFixed(0)}% of its job time at ${throughputNowMibps.toFixed(0)} MiB/s`,
  };
}

/** Spill written and read back, shuffle written, shuffle read: each byte through a disk, per node. */
function diskBytesPerNode(traffic: DiskTraffic): number {
  const bytes = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);
  const total =
    2 * bytes(traffic.diskSpillBytes) + bytes(traffic.shuffleWriteBytes) + bytes(traffic.shuffleReadBytes);
  return total / Math.max(1, traffic.nodes);
}

/** The throughput a node had from its gp3 (or st1) volumes: each gp3 at its own or gp3's baseline 125 MiB/s. */
export function volumesThroughputMibps(volumes: readonly VolumeSpec[]): number {
  let total = 0;
  for (const volume of volumes) {
    // st1 delivers 40 MiB/s per TiB of size (its baseline), at least what a 125 GiB volume gets
    const each =
      volume.type === 'gp3'
        ? (volume.throughputMibps ?? gp3Limits.minThroughput)
        : volume.type === 'st1'
          ? Math.max(5, (volume.sizeGb / 1024) * 40)
          : gp3Limits.minThroughput;
    total += each * volume.count;
  }
  return total;
}
