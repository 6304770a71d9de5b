import type { NodeType } from './node-types.js';

const mib = 1024 ** 2;
const gib = 1024 ** 3;
/** Spark keeps this much of every heap out of its unified memory (`RESERVED_SYSTEM_MEMORY_BYTES`). */
const reservedBytes = 300 * mib;
/**
 * The driver's heap: half its node's memory plus Spark's reserve. The driver's block manager reports
 * (heap − 300 MiB) × 0.6 = 0.3 × the node's memory as its "Maximum Memory", as the event log says.
 */
export function driverHeapBytes(node: NodeType): number {
  return node.memoryMb * mib * 0.5 + reservedBytes;
}

/** What the driver holds whatever the job does: the SparkContext, the scheduler's state, the REPL. */
export const driverBaseHeapBytes = 1 * gib;
/**
 * Collected rows take about twice their serialized size once the driver has deserialized them into JVM
 * objects (Spark's docs on `spark.driver.maxResultSize`: a high limit "may cause out-of-memory errors in
 * driver (depends on spark.driver.memory and memory overhead of objects in JVM)").
 */
export const deserializedFactor = 2;
/** GC seconds per GiB of live data at half the heap; the cost grows as p / (1 − p) of the heap in use. */
const gcSecondsPerLiveGib = 1;

/** `spark.driver.maxResultSize` (Spark's default 1g; 0 means no limit), in bytes. */
export function maxResultSizeBytes(sparkConf: Readonly<Record<string, string>>): number {
  const raw = sparkConf['spark.driver.maxResultSize'];
  if (raw === undefined) return 1 * gib;
  const match = /^(\d+(?:\.\d+)?)([kmgt]?)b?$/i.exec(raw.trim());
  if (!match) return 1 * gib;
  const unit = (match[2] ?? '').toLowerCase();
  const scale = unit === 'k' ? 1024 : unit === 'm' ? mib : unit === 'g' ? gib : unit === 't' ? 1024 * gib : 1;
  return Number(match[1]) * scale;
}

/** What one stage's results do to the driver. */
export interface CollectOutcome {
  /** Driver-side seconds after the stage: fetching the results over its network and GC while it holds them. */
  seconds: number;
  /** Heap in use at the stage's peak. */
  heapBytes: number;
  gcMs: number;
  /** Spark's or Databricks' message when the driver cannot take the results. */
  failure?: string;
}

/**
 * A stage that sends `resultBytes` (serialized) from `tasks` tasks to a driver on `node`:
 * above `spark.driver.maxResultSize` Spark aborts the job (TaskSetManager's message); beyond the heap the
 * driver dies of an OutOfMemoryError (Databricks restarts it and the run fails); otherwise the driver fetches
 * the results over its network and collects garbage the harder the fuller its heap.
 */
export function collectOnDriver(
  node: NodeType,
  sparkConf: Readonly<Record<string, string>>,
  tasks: number,
  resultBytes: number,
): CollectOutcome {
  const heap = driverHeapBytes(node);
  const limit = maxResultSizeBytes(sparkConf);
  const live = driverBaseHeapBytes + resultBytes * deserializedFactor;
  if (limit > 0 && resultBytes > limit) {
    return {
      seconds: 0,
      heapBytes: Math.min(heap, driverBaseHeapBytes + limit),
      gcMs: 0,
      failure: `Job aborted due to stage failure: Total size of serialized results of ${tasks} tasks (${mibText(resultBytes)}) is bigger than spark.driver.maxResultSize (${mibText(limit)})`,
    };
  }
  if (live > heap) {
    return {
      seconds: 0,
      heapBytes: heap,
      gcMs: 0,
      failure:
        'The spark driver has stopped unexpectedly and is restarting. java.lang.OutOfMemoryError: Java heap space',
    };
  }
  const fetchSeconds = resultBytes / ((node.networkGbps / 8) * 1e9);
  const pressure = Math.min(0.97, live / heap);
  const gcSeconds = resultBytes > 0 ? gcSecondsPerLiveGib * (live / gib) * (pressure / (1 - pressure)) : 0;
  return { seconds: fetchSeconds + gcSeconds, heapBytes: live, gcMs: Math.round(gcSeconds * 1000) };
}

function mibText(bytes: number): string {
  return `${(bytes / mib).toFixed(1)} MiB`;
}
