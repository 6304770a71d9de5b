/** Receives one line without its line terminator: `buffer[start, end)`; `cut` marks a last line without "\n". */
export type LineHandler = (buffer: Buffer, start: number, end: number, cut: boolean) => void;

/** A line longer than the limit, skipped without being buffered whole. */
export interface OverlongLine {
  /** 1-based line number. */
  lineNumber: number;
  /** Its length in bytes (without the terminator). */
  bytes: number;
  /** Its first bytes (at most `overlongHeadBytes`), enough to tell which event it was. */
  head: Buffer;
}

export interface LineSinks {
  line: LineHandler;
  /** `count` empty lines in a row ("\n\n\n…"), reported at once so floods cost one call. */
  blankLines(count: number): void;
  overlong(line: OverlongLine): void;
}

/**
 * Spark plan strings reach megabytes, but the reader strips plans and skips the events that carry
 * the biggest ones by name; no line it needs comes near this. Longer lines are skipped, not buffered.
 */
export const defaultMaxLineBytes = 32 * 1024 * 1024;

const overlongHeadBytes = 256;
const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * Splits a byte stream into lines without copying, except for lines that straddle chunks. A line
 * longer than `maxLineBytes` is never held whole: once it passes the limit its bytes are dropped as
 * they arrive, and the sink hears of it when its end is reached, so memory stays within the limit.
 */
export class LineSplitter {
  private carried: Buffer[] = [];
  private carriedBytes = 0;
  /** Bytes of the current over-long line seen so far, or -1 when not inside one. */
  private skippedBytes = -1;
  private skippedHead: Buffer = Buffer.alloc(0);
  private lineNumber = 0;

  constructor(
    private readonly sinks: LineSinks,
    private readonly maxLineBytes = defaultMaxLineBytes,
  ) {}

  get lines(): number {
    return this.lineNumber;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(newline);
    if (this.skippedBytes >= 0 || this.carriedBytes > 0) {
      if (end === -1) {
        this.continueLine(chunk);
        return;
      }
      this.continueLine(chunk.subarray(0, end));
      this.finishStraddlingLine(false);
      start = end + 1;
      end = chunk.indexOf(newline, start);
    }
    while (end !== -1) {
      if (end === start) {
        let run = end + 1;
        while (run < chunk.length && chunk[run] === newline) run++;
        this.lineNumber += run - start;
        this.sinks.blankLines(run - start);
        start = run;
        end = chunk.indexOf(newline, start);
        continue;
      }
      if (end - start > this.maxLineBytes) this.reportOverlong(chunk.subarray(start, end), end - start);
      else this.emit(chunk, start, end, false);
      start = end + 1;
      end = chunk.indexOf(newline, start);
    }
    if (start < chunk.length) this.continueLine(chunk.subarray(start));
  }

  /**
   * Lines between two pushes that another reader took (`LinesOnTwoThreads`): they count, so that
   * the number of a later over-long line is its line in the log. Call only between whole lines.
   */
  countLinesReadElsewhere(count: number): void {
    this.lineNumber += count;
  }

  /** Flushes a last line that has no line terminator. */
  end(): void {
    if (this.skippedBytes >= 0 || this.carriedBytes > 0) this.finishStraddlingLine(true);
  }

  private continueLine(piece: Buffer): void {
    if (this.skippedBytes >= 0) {
      this.skippedBytes += piece.length;
      return;
    }
    this.carriedBytes += piece.length;
    this.carried.push(piece);
    if (this.carriedBytes > this.maxLineBytes) {
      this.skippedHead = Buffer.from(
        Buffer.concat(this.carried, overlongHeadBytes).subarray(0, overlongHeadBytes),
      );
      this.skippedBytes = this.carriedBytes;
      this.carried = [];
      this.carriedBytes = 0;
    }
  }

  private finishStraddlingLine(cut: boolean): void {
    if (this.skippedBytes >= 0) {
      const bytes = this.skippedBytes;
      this.skippedBytes = -1;
      this.lineNumber++;
      this.sinks.overlong({ lineNumber: this.lineNumber, bytes, head: this.skippedHead });
      this.skippedHead = Buffer.alloc(0);
      return;
    }
    const line =
      this.carried.length === 1 ? this.carried[0]! : Buffer.concat(this.carried, this.carriedBytes);
    this.carried = [];
    this.carriedBytes = 0;
    this.emit(line, 0, line.length, cut);
  }

  private reportOverlong(line: Buffer, bytes: number): void {
    this.lineNumber++;
    this.sinks.overlong({
      lineNumber: this.lineNumber,
      bytes,
      head: Buffer.from(line.subarray(0, overlongHeadBytes)),
    });
  }

  private emit(buffer: Buffer, start: number, end: number, cut: boolean): void {
    this.lineNumber++;
    const trimmedEnd = end > start && buffer[end - 1] === carriageReturn ? end - 1 : end;
    this.sinks.line(buffer, start, trimmedEnd, cut);
  }
}
