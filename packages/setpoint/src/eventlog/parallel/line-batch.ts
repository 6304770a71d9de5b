import { readLineAhead } from '../run-aggregator.js';
import type { TaskEndRecord, TaskOutcome } from '../task-end-reader.js';

/**
 * A newline-aligned batch of a log's bytes read on a worker thread: what each line is, in order, as
 * plain numbers that cross threads without cloning objects. `ops` holds triples:
 *   [opBytes, start, end]   lines the aggregator reads itself: the bytes `batch[start, end)`, whole lines
 *   [opTask, lineBytes, i]  a TaskEnd line whose task is record i of `tasks`
 *   [opSkip, lineBytes, i]  a line of an event the aggregator skips, named `names[i]`
 */
export interface ReadBatch {
  ops: Int32Array;
  tasks: Float64Array;
  executorIds: string[];
  names: string[];
}

export const opBytes = 0;
export const opTask = 1;
export const opSkip = 2;

const outcomes: readonly TaskOutcome[] = ['success', 'failed', 'killed', 'resubmitted'];
const numericFields = [
  'stageId',
  'stageAttemptId',
  'launchTime',
  'finishTime',
  'executorDeserializeTimeMs',
  'executorRunTimeMs',
  'executorCpuTimeNs',
  'jvmGcTimeMs',
  'resultSerializationTimeMs',
  'resultSizeBytes',
  'peakExecutionMemoryBytes',
  'memoryBytesSpilled',
  'diskBytesSpilled',
  'inputBytes',
  'inputRecords',
  'outputBytes',
  'outputRecords',
  'shuffleRemoteBytesRead',
  'shuffleLocalBytesRead',
  'shuffleReadRecords',
  'shuffleFetchWaitTimeMs',
  'shuffleWriteBytes',
  'shuffleWriteRecords',
  'shuffleWriteTimeNs',
] as const satisfies ReadonlyArray<keyof TaskEndRecord>;

/** outcome, speculative, executor id index, then the numeric fields. */
const stride = 3 + numericFields.length;
const newline = 0x0a;
const carriageReturn = 0x0d;

/** A growable Int32Array / Float64Array pair, so a batch of small lines costs no per-line objects. */
class Numbers<T extends Int32Array | Float64Array> {
  length = 0;
  constructor(
    public values: T,
    private readonly grow: (size: number) => T,
  ) {}
  push(value: number): void {
    if (this.length === this.values.length) {
      const bigger = this.grow(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = value;
  }
  view(): T {
    return this.values.subarray(0, this.length) as T;
  }
}

/** Strings that repeat (executor ids, event names), each kept once with its index. */
class Interned {
  readonly values: string[] = [];
  readonly #index = new Map<string, number>();
  indexOf(value: string): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.#index.set(value, index);
    }
    return index;
  }
}

/**
 * Reads `batch` (whole lines, each ending in "\n") as the aggregator would line by line, for the
 * lines it can read ahead: TaskEnds (most of a task-heavy log's work) and skipped events. A line
 * over `maxLineBytes`, a blank one, and every line `readLineAhead` leaves are handed back as bytes,
 * runs of them joined, for the line splitter and the aggregator to read as they always do.
 */
export function readLineBatch(batch: Buffer, maxLineBytes: number): ReadBatch {
  const ops = new Numbers(new Int32Array(1024), (size) => new Int32Array(size));
  const tasks = new Numbers(new Float64Array(stride * 256), (size) => new Float64Array(size));
  const executorIds = new Interned();
  const names = new Interned();
  let bytesFrom = -1;
  const endBytes = (at: number) => {
    if (bytesFrom === -1) return;
    ops.push(opBytes);
    ops.push(bytesFrom);
    ops.push(at);
    bytesFrom = -1;
  };
  for (let start = 0; start < batch.length; ) {
    let end = batch.indexOf(newline, start);
    if (end === -1) end = batch.length; // not expected: batches end in "\n"
    const trimmedEnd = end > start && batch[end - 1] === carriageReturn ? end - 1 : end;
    const read = end - start > maxLineBytes ? undefined : readLineAhead(batch, start, trimmedEnd);
    if (read === undefined) {
      if (bytesFrom === -1) bytesFrom = start;
    } else {
      endBytes(start);
      const lineBytes = trimmedEnd - start;
      if ('task' in read) {
        const { task } = read;
        ops.push(opTask);
        ops.push(lineBytes);
        ops.push(tasks.length / stride);
        tasks.push(outcomes.indexOf(task.outcome));
        tasks.push(task.speculative ? 1 : 0);
        tasks.push(executorIds.indexOf(task.executorId));
        for (const field of numericFields) tasks.push(task[field]);
      } else {
        ops.push(opSkip);
        ops.push(lineBytes);
        ops.push(names.indexOf(read.skipped));
      }
    }
    start = end + 1;
  }
  endBytes(batch.length);
  return { ops: ops.view(), tasks: tasks.view(), executorIds: executorIds.values, names: names.values };
}

/** Record `index` of a read batch's tasks. */
export function taskAt(batch: ReadBatch, index: number): TaskEndRecord {
  const { tasks } = batch;
  const at = index * stride;
  const field = (offset: number) => tasks[at + 3 + offset] as number;
  return {
    outcome: outcomes[tasks[at] as number] as TaskOutcome,
    speculative: tasks[at + 1] === 1,
    executorId: batch.executorIds[tasks[at + 2] as number] as string,
    stageId: field(0),
    stageAttemptId: field(1),
    launchTime: field(2),
    finishTime: field(3),
    executorDeserializeTimeMs: field(4),
    executorRunTimeMs: field(5),
    executorCpuTimeNs: field(6),
    jvmGcTimeMs: field(7),
    resultSerializationTimeMs: field(8),
    resultSizeBytes: field(9),
    peakExecutionMemoryBytes: field(10),
    memoryBytesSpilled: field(11),
    diskBytesSpilled: field(12),
    inputBytes: field(13),
    inputRecords: field(14),
    outputBytes: field(15),
    outputRecords: field(16),
    shuffleRemoteBytesRead: field(17),
    shuffleLocalBytesRead: field(18),
    shuffleReadRecords: field(19),
    shuffleFetchWaitTimeMs: field(20),
    shuffleWriteBytes: field(21),
    shuffleWriteRecords: field(22),
    shuffleWriteTimeNs: field(23),
  };
}
