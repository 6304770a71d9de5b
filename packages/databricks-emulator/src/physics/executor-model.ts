import type { SimClusterSpec } from './cluster-spec.js';
import type { NodeType } from './node-types.js';

const gib = 1024 ** 3;
const reservedMemoryBytes = 300 * 1024 ** 2;

/** Throughput of one EBS volume for spill-style access, GB/s. HDD volumes suffer on small random blocks. */
const ebsVolumeGbps = { GENERAL_PURPOSE_SSD: 0.25, THROUGHPUT_OPTIMIZED_HDD: 0.04 } as const;

export interface ExecutorShape {
  cores: number;
  heapBytes: number;
  /** Execution + storage memory available to one running task. */
  executionMemoryPerTaskBytes: number;
  diskGbpsPerCore: number;
  networkGBpsPerCore: number;
  cpuFactor: number;
}

function parseSizeBytes(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const match = /^(\d+(?:\.\d+)?)([kmgt]?)b?$/i.exec(raw.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? '').toLowerCase();
  const scale =
    unit === 'k'
      ? 1024
      : unit === 'm'
        ? 1024 ** 2
        : unit === 'g'
          ? gib
          : unit === 't'
            ? 1024 * gib
            : 1024 ** 2;
  return Number(match[1]) * scale;
}

/** Databricks leaves roughly a quarter of a worker's memory to the OS, off-heap and the page cache. */
export function defaultExecutorHeapBytes(node: NodeType): number {
  return Math.max(1 * gib, node.memoryMb * 1024 ** 2 * 0.72 - 1 * gib);
}

export function executorShape(spec: SimClusterSpec): ExecutorShape {
  const node = spec.nodeType;
  const heapBytes = parseSizeBytes(spec.sparkConf['spark.executor.memory']) ?? defaultExecutorHeapBytes(node);
  const fraction = Number(spec.sparkConf['spark.memory.fraction'] ?? '0.6') || 0.6;
  const cores = node.cores;
  let diskGbps: number;
  if (node.localDisk !== 'none') {
    diskGbps = node.localDiskGbpsPerCore * cores;
  } else {
    const volumes = Math.max(1, spec.ebs.count);
    diskGbps = Math.min(volumes * ebsVolumeGbps[spec.ebs.type], node.ebsGbps);
  }
  return {
    cores,
    heapBytes,
    executionMemoryPerTaskBytes: ((heapBytes - reservedMemoryBytes) * fraction) / cores,
    diskGbpsPerCore: diskGbps / cores,
    networkGBpsPerCore: node.networkGbps / 8 / cores,
    cpuFactor: node.cpuSpeed * (0.75 + 0.25 * node.memoryBandwidth),
  };
}
