import { availableParallelism, loadavg } from 'node:os';
import { ValidationError } from '@setpoint/foundation/errors';
import { type DecodeOptions, decodeSource } from './codec/decode-source.js';
import { TruncatedStreamError } from './eventlog-errors.js';
import { DecompressionBudget, type EventLogLimits, formatBytes, resolveLimits } from './eventlog-limits.js';
import { orderDatabricksParts } from './layout/order-databricks-parts.js';
import type { EventLogUnit } from './layout/resolve-layout.js';
import { LineSplitter } from './line-splitter.js';
import { LinesOnTwoThreads } from './parallel/lines-on-two-threads.js';
import { type AggregatedRun, RunAggregator } from './run-aggregator.js';
import type { EventLogSourceInfo } from './run-profile.js';

export interface ReadProgress {
  storedBytesRead: number;
  storedBytesTotal: number;
}

export interface ReadOptions
  extends Pick<DecodeOptions, 'zstdDecoder' | 'blockDecoder' | 'offThreadMinBytes'> {
  /** Read what a truncated compressed stream holds (with a warning) instead of failing. */
  allowTruncated?: boolean;
  /** Bounds of the read; unset ones take `defaultEventLogLimits`. */
  limits?: Partial<EventLogLimits>;
  onProgress?: (progress: ReadProgress) => void;
  /**
   * Threads that split and read lines: 2 shares the reading of TaskEnd and skipped-event lines with a
   * worker thread (`LinesOnTwoThreads`), with the same profile; `auto` takes 2 only for large plain
   * parts on a machine with an idle core (`twoThreadsPay`). Default 1: on the shared 2-core
   * reference machine two threads cost more CPU than they save in wall time (docs/benchmarks.md,
   * "Event log engine: two parsing threads").
   */
  parseThreads?: 1 | 2 | 'auto';
}

/** Stored bytes of a plain part from which `parseThreads: 'auto'` reads it on two threads. */
export const twoThreadMinBytes = 64 * 2 ** 20;

/**
 * Where a second parsing thread can pay: a plain part large enough that the worker's start is small
 * beside it, on a machine with a core to spare now (the last minute's load average leaves one idle).
 * On a busy machine the two threads only add work. A compressed part already decodes on another core.
 */
export function twoThreadsPay(codec: string, storedBytes: number): boolean {
  const cores = availableParallelism();
  return codec === 'plain' && storedBytes >= twoThreadMinBytes && cores >= 2 && loadavg()[0]! <= cores - 1;
}

export interface ReadResult {
  run: AggregatedRun;
  source: EventLogSourceInfo;
}

/** Streams every part of one event log through the aggregator, in order, within the limits. */
export async function readEventLog(unit: EventLogUnit, options: ReadOptions = {}): Promise<ReadResult> {
  const limits = resolveLimits(options.limits);
  const aggregator = new RunAggregator(limits);
  const budget = new DecompressionBudget(limits);
  const decodeOptions: DecodeOptions = {
    ...(options.zstdDecoder ? { zstdDecoder: options.zstdDecoder } : {}),
    ...(options.blockDecoder ? { blockDecoder: options.blockDecoder } : {}),
    ...(options.offThreadMinBytes !== undefined ? { offThreadMinBytes: options.offThreadMinBytes } : {}),
  };
  let parts = unit.parts;
  if (unit.needsHeaderOrdering && parts.length > 1) {
    const ordered = await orderDatabricksParts(parts, decodeOptions);
    parts = ordered.parts;
    for (const warning of ordered.warnings) aggregator.warn(warning);
  }
  const storedBytesTotal = parts.reduce((sum, part) => sum + part.size, 0);
  let storedBytesRead = 0;
  const onStoredBytes = (bytes: number) => {
    storedBytesRead += bytes;
    budget.addStored(bytes);
    aggregator.addStoredBytes(bytes);
    options.onProgress?.({ storedBytesRead, storedBytesTotal });
  };
  const partInfo: EventLogSourceInfo['parts'] = [];
  for (const part of parts) {
    const { codec, chunks } = await decodeSource(part, { ...decodeOptions, onStoredBytes });
    partInfo.push({ name: part.name, codec, storedBytes: part.size });
    const splitter = new LineSplitter(
      {
        line: (buffer, start, end, cut) => aggregator.acceptLine(buffer, start, end, cut),
        blankLines: (count) => aggregator.acceptBlankLines(count),
        overlong: (line) => aggregator.acceptOverlongLine(line),
      },
      limits.maxLineBytes,
    );
    const threads = options.parseThreads ?? 1;
    const twoThreads =
      threads === 2 || (threads === 'auto' && twoThreadsPay(codec, part.size))
        ? new LinesOnTwoThreads(splitter, aggregator, limits.maxLineBytes)
        : undefined;
    try {
      for await (const chunk of chunks) {
        budget.addDecompressed(chunk.length, part.name);
        const bytes = Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        if (twoThreads) await twoThreads.push(bytes);
        else splitter.push(bytes);
      }
    } catch (error) {
      if (!(error instanceof TruncatedStreamError) || !(unit.inProgress || options.allowTruncated)) {
        await twoThreads?.close();
        if (error instanceof TruncatedStreamError && aggregator.hasEvents()) {
          throw new ValidationError(
            'EVENTLOG_TRUNCATED',
            `${error.message}; rerun with --allow-truncated to analyze the part that was written`,
          );
        }
        throw error;
      }
      aggregator.warn(`${part.name}: the ${codec} stream ends mid-block; read the complete blocks only`);
    }
    if (twoThreads) {
      try {
        await twoThreads.finish();
      } finally {
        await twoThreads.close();
      }
    }
    splitter.end();
  }
  const run = aggregator.finish();
  if (run.parse.events === 0) {
    const lines = run.parse.lines;
    const overlong = run.parse.issues.find((issue) => issue.code === 'line-too-long')?.lines ?? [];
    const skipped =
      overlong.length === 0
        ? ''
        : `; line${overlong.length === 1 ? '' : 's'} ${overlong.join(', ')} ${overlong.length === 1 ? 'is' : 'are'} longer than ${formatBytes(limits.maxLineBytes)} (limit maxLineBytes) and ${overlong.length === 1 ? 'was' : 'were'} skipped`;
    throw new ValidationError(
      'EVENTLOG_NO_EVENTS',
      `${unit.path}: not a Spark event log (no Spark listener events in ${lines} line${lines === 1 ? '' : 's'}${skipped})`,
    );
  }
  return {
    run,
    source: { path: unit.path, layout: unit.layout, inProgress: unit.inProgress, parts: partInfo },
  };
}
