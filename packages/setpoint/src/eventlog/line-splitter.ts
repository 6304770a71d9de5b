import { ValidationError } from '@setpoint/foundation/errors';

/** Receives one line without its line terminator: `buffer[start, end)`; `cut` marks a last line without "\n". */
export type LineHandler = (buffer: Buffer, start: number, end: number, cut: boolean) => void;

/** Spark plan strings reach megabytes; no real event line comes near this. */
export const defaultMaxLineBytes = 128 * 1024 * 1024;

const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * Splits a byte stream into lines without copying, except for lines that straddle chunks.
 * A line longer than `maxLineBytes` stops the read with a clear error rather than exhausting memory.
 */
export class LineSplitter {
  private carried: Buffer[] = [];
  private carriedBytes = 0;
  private lineNumber = 0;

  constructor(
    private readonly onLine: LineHandler,
    private readonly source: string,
    private readonly maxLineBytes = defaultMaxLineBytes,
  ) {}

  get lines(): number {
    return this.lineNumber;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(newline);
    if (this.carriedBytes > 0) {
      if (end === -1) {
        this.carry(chunk);
        return;
      }
      this.carry(chunk.subarray(0, end));
      const line = Buffer.concat(this.carried, this.carriedBytes);
      this.carried = [];
      this.carriedBytes = 0;
      this.emit(line, 0, line.length, false);
      start = end + 1;
      end = chunk.indexOf(newline, start);
    }
    while (end !== -1) {
      if (end - start > this.maxLineBytes) this.tooLong();
      this.emit(chunk, start, end, false);
      start = end + 1;
      end = chunk.indexOf(newline, start);
    }
    if (start < chunk.length) this.carry(chunk.subarray(start));
  }

  /** Flushes a last line that has no line terminator. */
  end(): void {
    if (this.carriedBytes === 0) return;
    const line = Buffer.concat(this.carried, this.carriedBytes);
    this.carried = [];
    this.carriedBytes = 0;
    this.emit(line, 0, line.length, true);
  }

  private carry(piece: Buffer): void {
    this.carriedBytes += piece.length;
    if (this.carriedBytes > this.maxLineBytes) this.tooLong();
    this.carried.push(piece);
  }

  private emit(buffer: Buffer, start: number, end: number, cut: boolean): void {
    this.lineNumber++;
    const trimmedEnd = end > start && buffer[end - 1] === carriageReturn ? end - 1 : end;
    this.onLine(buffer, start, trimmedEnd, cut);
  }

  private tooLong(): never {
    const limitMiB = Math.round(this.maxLineBytes / (1024 * 1024));
    throw new ValidationError(
      'EVENTLOG_LINE_TOO_LONG',
      `${this.source}: line ${this.lineNumber + 1} is longer than ${limitMiB} MiB; this is not a Spark event log (or it is corrupt)`,
    );
  }
}
