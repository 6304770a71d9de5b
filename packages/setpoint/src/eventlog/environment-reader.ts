import { bytesEqual, decodeStringContent, forEachEntry, type JsonEntry } from './json-scan.js';
import { isKeptSparkConfKey, isSecretKey, isSecretValue, redactedValue } from './spark-conf-policy.js';

export interface SparkConfLimits {
  /** Kept keys at most; further allow-listed keys are counted and dropped. */
  maxConfKeys: number;
  /** Characters kept of one value; longer values are cut and marked. */
  maxConfValueChars: number;
}

export const defaultSparkConfLimits: SparkConfLimits = { maxConfKeys: 256, maxConfValueChars: 2048 };

/** Keys longer than this are never on the allow-list, so they are counted without being decoded. */
const maxKeyBytes = 256;
/** A value's raw bytes decoded at most; beyond, its first bytes are kept as they are. */
const maxDecodedValueBytes = 64 * 1024;
const truncationMark = '…(truncated)';

export interface SparkConfCounts {
  /** Properties in the log's EnvironmentUpdate events. */
  seen: number;
  kept: number;
  /** Allow-listed keys dropped because `maxConfKeys` were already kept. */
  overLimit: number;
  redacted: number;
  truncated: number;
}

/**
 * Collects the Spark properties a RunProfile keeps from EnvironmentUpdate events, reading the event
 * with a scanner instead of JSON.parse: a hostile event with millions of properties costs one pass
 * over its bytes and memory for the kept keys only.
 */
export class SparkConfCollector {
  private readonly kept = new Map<string, string>();
  readonly counts: SparkConfCounts = { seen: 0, kept: 0, overLimit: 0, redacted: 0, truncated: 0 };

  constructor(private readonly limits: SparkConfLimits = defaultSparkConfLimits) {}

  /**
   * Reads one EnvironmentUpdate line (`buffer[start, end)`); false when it is not a JSON object.
   * Later events override earlier values of the same key, as in Spark.
   */
  readEnvironmentUpdate(buffer: Buffer, start: number, end: number): boolean {
    const after = forEachEntry(buffer, start, end, (section) => {
      if (bytesEqual(buffer, section.keyStart, section.keyEnd, 'Spark Properties')) {
        forEachEntry(buffer, section.valueStart, section.valueEnd, (entry) => this.offer(buffer, entry));
      }
    });
    return after !== -1;
  }

  conf(): Record<string, string> {
    return Object.fromEntries(this.kept);
  }

  private offer(buffer: Buffer, entry: JsonEntry): void {
    this.counts.seen++;
    if (entry.keyEnd - entry.keyStart > maxKeyBytes) return;
    const key = decodeStringContent(buffer, entry.keyStart, entry.keyEnd);
    if (key === undefined || !isKeptSparkConfKey(key)) return;
    let value = this.valueOf(buffer, entry);
    if (value === undefined) return;
    if (!this.kept.has(key) && this.kept.size >= this.limits.maxConfKeys) {
      this.counts.overLimit++;
      return;
    }
    if (isSecretKey(key) || isSecretValue(value)) {
      value = redactedValue;
      this.counts.redacted++;
    } else if (value.length > this.limits.maxConfValueChars) {
      value = value.slice(0, this.limits.maxConfValueChars) + truncationMark;
      this.counts.truncated++;
    }
    if (!this.kept.has(key)) this.counts.kept++;
    this.kept.set(key, value);
  }

  /** A string, number or boolean value as text (what Spark's maps hold); undefined for anything else. */
  private valueOf(buffer: Buffer, { valueStart, valueEnd }: JsonEntry): string | undefined {
    const first = buffer[valueStart];
    if (first === 0x22) {
      const contentEnd = valueEnd - 1;
      if (contentEnd - (valueStart + 1) > maxDecodedValueBytes) {
        return buffer.toString('utf8', valueStart + 1, valueStart + 1 + maxDecodedValueBytes);
      }
      return decodeStringContent(buffer, valueStart + 1, contentEnd);
    }
    const raw = buffer.toString('latin1', valueStart, Math.min(valueEnd, valueStart + 64));
    return raw === 'true' || raw === 'false' || /^-?\d/.test(raw) ? raw : undefined;
  }
}
