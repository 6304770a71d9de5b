import { ValidationError } from '@setpoint/foundation/errors';
import { defaultMaxLineBytes } from './line-splitter.js';
import { defaultProfileCaps, type ProfileCaps } from './profile-caps.js';
import { type AggregatorLimits, defaultAggregatorLimits } from './run-aggregator.js';

/**
 * The bounds one read of an event log stays within. Exceeding a byte or ratio bound stops the read
 * with an EventLogLimitError (the input is refused); exceeding a line, key or text bound is
 * tolerated and recorded in `parse.issues`; what the profile keeps of the run is bounded by its caps
 * (profile-caps.ts), the rest counted in `parse.omitted`. docs/eventlog.md, section "Limits", is the reference.
 */
export interface EventLogLimits extends AggregatorLimits, ProfileCaps {
  /** Decompressed bytes of all parts of one run together. */
  maxDecompressedBytes: number;
  /** Decompressed ÷ stored bytes, enforced once `compressionRatioFloorBytes` have been decompressed. */
  maxCompressionRatio: number;
  compressionRatioFloorBytes: number;
  /** Longer lines are skipped (a `line-too-long` issue), never buffered whole. */
  maxLineBytes: number;
  /** Entries of a zip archive. */
  maxZipEntries: number;
}

export const defaultEventLogLimits: EventLogLimits = {
  ...defaultAggregatorLimits,
  ...defaultProfileCaps,
  maxDecompressedBytes: 16 * 2 ** 30,
  maxCompressionRatio: 500,
  compressionRatioFloorBytes: 64 * 2 ** 20,
  maxLineBytes: defaultMaxLineBytes,
  maxZipEntries: 10_000,
};

export type EventLogLimitName = keyof EventLogLimits;

export function resolveLimits(limits: Partial<EventLogLimits> = {}): EventLogLimits {
  const resolved = { ...defaultEventLogLimits };
  for (const [name, value] of Object.entries(limits) as Array<[EventLogLimitName, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0) {
      throw new ValidationError(
        'EVENTLOG_LIMIT_INVALID',
        `event-log limit ${name} must be a positive number`,
      );
    }
    resolved[name] = value;
  }
  return resolved;
}

/** The input went past a hard bound: it is refused (a poison input, not worth retrying). */
export class EventLogLimitError extends ValidationError {
  constructor(
    code: 'EVENTLOG_TOO_LARGE' | 'EVENTLOG_COMPRESSION_RATIO' | 'EVENTLOG_ZIP_TOO_MANY_ENTRIES',
    readonly limit: EventLogLimitName,
    readonly limitValue: number,
    message: string,
  ) {
    super(code, message, { details: { limit, limitValue } });
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${+(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${+(bytes / 2 ** 20).toFixed(1)} MiB`;
  return `${bytes} bytes`;
}

/** Counts decompressed bytes against the run's byte and ratio bounds. */
export class DecompressionBudget {
  private decompressed = 0;
  private stored = 0;

  constructor(private readonly limits: EventLogLimits) {}

  addStored(bytes: number): void {
    this.stored += bytes;
  }

  addDecompressed(bytes: number, source: string): void {
    this.decompressed += bytes;
    const { maxDecompressedBytes, maxCompressionRatio, compressionRatioFloorBytes } = this.limits;
    if (this.decompressed > maxDecompressedBytes) {
      throw new EventLogLimitError(
        'EVENTLOG_TOO_LARGE',
        'maxDecompressedBytes',
        maxDecompressedBytes,
        `${source}: the event log decompresses to more than ${formatBytes(maxDecompressedBytes)} (limit maxDecompressedBytes)`,
      );
    }
    if (
      this.decompressed > compressionRatioFloorBytes &&
      this.decompressed > maxCompressionRatio * this.stored
    ) {
      throw new EventLogLimitError(
        'EVENTLOG_COMPRESSION_RATIO',
        'maxCompressionRatio',
        maxCompressionRatio,
        `${source}: decompresses more than ${maxCompressionRatio}× its stored size (limit maxCompressionRatio); a Spark event log compresses about 10–50×, so this is a decompression bomb or a flood of empty lines`,
      );
    }
  }
}
