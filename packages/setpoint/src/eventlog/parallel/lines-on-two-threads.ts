import type { Worker } from 'node:worker_threads';
import type { LineSplitter } from '../line-splitter.js';
import type { RunAggregator } from '../run-aggregator.js';
import { startWorker } from '../worker/start-worker.js';
import { opBytes, opSkip, opTask, type ReadBatch, readLineBatch, taskAt } from './line-batch.js';

export interface BatchRequest {
  id: number;
  bytes: Uint8Array;
  maxLineBytes: number;
}
export type BatchReply = { id: number; batch: ReadBatch } | { id: number; error: string };

/** Bytes gathered into one batch. */
const batchBytes = 1 << 20;
/**
 * With this many batches sent and not yet read, the worker is behind: this thread reads the next
 * batch itself (the same `readLineBatch`), so the reading splits between the threads as their speed
 * allows, and a machine that gives the worker no core reads about as fast as one thread.
 */
const workerBehind = 2;
/** Batches not yet applied: bounds the memory of what waits (about 2 MiB each). */
const maxBatchesPending = 8;
const newline = 0x0a;

interface PendingBatch {
  kind: 'batch';
  /** Whole lines, each ending in "\n". */
  bytes: Buffer;
  /** Settles when the worker's reply has come (at once for a batch read here). */
  reply: Promise<void>;
  read?: ReadBatch | 'failed';
}

/** Bytes for the splitter, or a batch read ahead, in the log's order. */
type Pending = { kind: 'bytes'; bytes: Buffer } | PendingBatch;

/**
 * Reads one part of an event log on two threads. This thread gathers the decoded bytes into batches
 * of about 1 MiB and cuts each at its first and last "\n": the whole lines between are read ahead
 * (`readLineBatch`: split, and TaskEnd and skipped-event lines — most of a task-heavy log's work —
 * read into compact numbers), by a worker thread or, while the worker is behind, by this one; the
 * partial lines at both ends go to the line splitter, which joins them with their neighbours' as it
 * always does. Results are applied in the log's order, and every line left unread is read by the same
 * splitter and aggregator calls as on one thread, so the profile is the same. A batch the worker could
 * not read is read here.
 */
export class LinesOnTwoThreads {
  readonly #splitter: LineSplitter;
  readonly #aggregator: RunAggregator;
  readonly #maxLineBytes: number;
  readonly #worker: Worker;
  readonly #replies = new Map<number, (reply: BatchReply) => void>();
  readonly #pending: Pending[] = [];
  #gathered: Buffer[] = [];
  #gatheredBytes = 0;
  #batchesOnWorker = 0;
  #batchesPending = 0;
  #nextId = 0;
  #workerStopped = false;

  constructor(splitter: LineSplitter, aggregator: RunAggregator, maxLineBytes: number) {
    this.#splitter = splitter;
    this.#aggregator = aggregator;
    this.#maxLineBytes = maxLineBytes;
    this.#worker = startWorker('./line-batch-worker', import.meta.url, {});
    this.#worker.on('message', (reply: BatchReply) => {
      const settle = this.#replies.get(reply.id);
      this.#replies.delete(reply.id);
      settle?.(reply);
    });
    const failAll = () => {
      this.#workerStopped = true;
      for (const [id, settle] of this.#replies) settle({ id, error: 'the line worker stopped' });
      this.#replies.clear();
    };
    this.#worker.on('error', failAll);
    this.#worker.on('exit', failAll);
  }

  /** Takes the next decoded chunk; waits while too many batches wait to be applied. */
  async push(chunk: Buffer): Promise<void> {
    this.#gathered.push(chunk);
    this.#gatheredBytes += chunk.length;
    if (this.#gatheredBytes < batchBytes) return;
    this.#cutBatch();
    this.#applyReady();
    while (this.#batchesPending >= maxBatchesPending) await this.#applyFirst();
  }

  /** Reads what is gathered and applies every batch: the splitter then holds at most a last, cut line. */
  async finish(): Promise<void> {
    if (this.#gatheredBytes > 0) this.#cutBatch();
    this.#applyReady();
    while (this.#pending.length > 0) await this.#applyFirst();
  }

  async close(): Promise<void> {
    this.#worker.removeAllListeners('exit');
    await this.#worker.terminate();
  }

  async #applyFirst(): Promise<void> {
    const first = this.#pending[0];
    if (first?.kind === 'batch') await first.reply;
    this.#applyReady();
  }

  #cutBatch(): void {
    const data =
      this.#gathered.length === 1
        ? (this.#gathered[0] as Buffer)
        : Buffer.concat(this.#gathered, this.#gatheredBytes);
    this.#gathered = [];
    this.#gatheredBytes = 0;
    const first = data.indexOf(newline);
    const last = first === -1 ? -1 : data.lastIndexOf(newline);
    if (first === -1 || first === last) {
      this.#pending.push({ kind: 'bytes', bytes: data });
      return;
    }
    // the line the previous batch left unfinished ends at the first "\n"; the last "\n" ends the batch
    this.#pending.push({ kind: 'bytes', bytes: data.subarray(0, first + 1) });
    this.#readAhead(data.subarray(first + 1, last + 1));
    if (last + 1 < data.length) this.#pending.push({ kind: 'bytes', bytes: data.subarray(last + 1) });
  }

  #readAhead(lines: Buffer): void {
    const batch: PendingBatch = { kind: 'batch', bytes: lines, reply: Promise.resolve() };
    this.#pending.push(batch);
    this.#batchesPending++;
    if (this.#workerStopped || this.#batchesOnWorker >= workerBehind) {
      batch.read = readLineBatch(lines, this.#maxLineBytes);
      return;
    }
    const id = this.#nextId++;
    this.#batchesOnWorker++;
    const copy = new Uint8Array(lines);
    batch.reply = new Promise<BatchReply>((resolve) => this.#replies.set(id, resolve)).then((reply) => {
      this.#batchesOnWorker--;
      batch.read = 'batch' in reply ? reply.batch : 'failed';
    });
    this.#worker.postMessage({ id, bytes: copy, maxLineBytes: this.#maxLineBytes } satisfies BatchRequest, [
      copy.buffer,
    ]);
  }

  /** Applies pending bytes and read batches in order, up to the first batch still being read. */
  #applyReady(): void {
    let applied = 0;
    for (const pending of this.#pending) {
      if (pending.kind === 'bytes') this.#splitter.push(pending.bytes);
      else if (pending.read === undefined) break;
      else {
        if (pending.read === 'failed') this.#splitter.push(pending.bytes);
        else this.#applyBatch(pending.bytes, pending.read);
        this.#batchesPending--;
      }
      applied++;
    }
    this.#pending.splice(0, applied);
  }

  #applyBatch(bytes: Buffer, read: ReadBatch): void {
    const { ops } = read;
    for (let at = 0; at < ops.length; at += 3) {
      const op = ops[at];
      const first = ops[at + 1] as number;
      const second = ops[at + 2] as number;
      if (op === opBytes) this.#splitter.push(bytes.subarray(first, second));
      else if (op === opTask) {
        this.#splitter.countLinesReadElsewhere(1);
        this.#aggregator.acceptReadTaskEnd(first, taskAt(read, second));
      } else if (op === opSkip) {
        this.#splitter.countLinesReadElsewhere(1);
        this.#aggregator.acceptSkippedEventLine(first, read.names[second] as string);
      }
    }
  }
}
