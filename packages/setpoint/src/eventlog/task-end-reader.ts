/**
 * Reads the figures Setpoint needs from a parsed SparkListenerTaskEnd. This is the hot path of a log
 * (one event per task), so it reads fields directly instead of validating with `taskEndSchema`;
 * anything missing or mistyped reads as 0, which is how Spark itself treats absent metrics. So do
 * values no Spark writes (negative or fractional times, non-finite or unsafe numbers from a damaged
 * log), which keeps every sum finite.
 */
export type TaskOutcome = 'success' | 'failed' | 'killed' | 'resubmitted';

export interface TaskEndRecord {
  stageId: number;
  stageAttemptId: number;
  outcome: TaskOutcome;
  executorId: string;
  launchTime: number;
  finishTime: number;
  speculative: boolean;
  executorDeserializeTimeMs: number;
  executorRunTimeMs: number;
  executorCpuTimeNs: number;
  jvmGcTimeMs: number;
  resultSerializationTimeMs: number;
  resultSizeBytes: number;
  peakExecutionMemoryBytes: number;
  memoryBytesSpilled: number;
  diskBytesSpilled: number;
  inputBytes: number;
  inputRecords: number;
  outputBytes: number;
  outputRecords: number;
  shuffleRemoteBytesRead: number;
  shuffleLocalBytesRead: number;
  shuffleReadRecords: number;
  shuffleFetchWaitTimeMs: number;
  shuffleWriteBytes: number;
  shuffleWriteRecords: number;
  shuffleWriteTimeNs: number;
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null ? (value as Json) : undefined;
}

/** A metric: a non-negative number up to 2^53. */
function num(object: Json | undefined, key: string): number {
  const value = object?.[key];
  return typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER ? value : 0;
}

/** An id or an epoch-millisecond time: a safe integer. */
function integer(object: Json | undefined, key: string): number {
  const value = object?.[key];
  return Number.isSafeInteger(value) ? (value as number) : 0;
}

/** Returns undefined when the event lacks the fields that identify a task. */
export function readTaskEnd(event: Json): TaskEndRecord | undefined {
  const stageId = event['Stage ID'];
  const info = asObject(event['Task Info']);
  if (!Number.isSafeInteger(stageId) || !info) return undefined;
  const metrics = asObject(event['Task Metrics']);
  const shuffleRead = asObject(metrics?.['Shuffle Read Metrics']);
  const shuffleWrite = asObject(metrics?.['Shuffle Write Metrics']);
  const input = asObject(metrics?.['Input Metrics']);
  const output = asObject(metrics?.['Output Metrics']);
  const executorId = info['Executor ID'];
  return {
    stageId: stageId as number,
    stageAttemptId: integer(event, 'Stage Attempt ID'),
    outcome: outcomeOf(event, info),
    executorId: typeof executorId === 'string' ? executorId : 'unknown',
    launchTime: Math.max(0, integer(info, 'Launch Time')),
    finishTime: Math.max(0, integer(info, 'Finish Time')),
    speculative: info.Speculative === true,
    executorDeserializeTimeMs: num(metrics, 'Executor Deserialize Time'),
    executorRunTimeMs: num(metrics, 'Executor Run Time'),
    executorCpuTimeNs: num(metrics, 'Executor CPU Time'),
    jvmGcTimeMs: num(metrics, 'JVM GC Time'),
    resultSerializationTimeMs: num(metrics, 'Result Serialization Time'),
    resultSizeBytes: num(metrics, 'Result Size'),
    peakExecutionMemoryBytes: num(metrics, 'Peak Execution Memory'),
    memoryBytesSpilled: num(metrics, 'Memory Bytes Spilled'),
    diskBytesSpilled: num(metrics, 'Disk Bytes Spilled'),
    inputBytes: num(input, 'Bytes Read'),
    inputRecords: num(input, 'Records Read'),
    outputBytes: num(output, 'Bytes Written'),
    outputRecords: num(output, 'Records Written'),
    shuffleRemoteBytesRead: num(shuffleRead, 'Remote Bytes Read'),
    shuffleLocalBytesRead: num(shuffleRead, 'Local Bytes Read'),
    shuffleReadRecords: num(shuffleRead, 'Total Records Read'),
    shuffleFetchWaitTimeMs: num(shuffleRead, 'Fetch Wait Time'),
    shuffleWriteBytes: num(shuffleWrite, 'Shuffle Bytes Written'),
    shuffleWriteRecords: num(shuffleWrite, 'Shuffle Records Written'),
    shuffleWriteTimeNs: num(shuffleWrite, 'Shuffle Write Time'),
  };
}

function outcomeOf(event: Json, info: Json): TaskOutcome {
  const reason = asObject(event['Task End Reason'])?.Reason;
  if (reason === 'Success') return 'success';
  if (reason === 'TaskKilled' || reason === 'TaskCommitDenied') return 'killed';
  if (reason === 'Resubmitted') return 'resubmitted';
  if (reason === undefined) {
    if (info.Killed === true) return 'killed';
    return info.Failed === true ? 'failed' : 'success';
  }
  return 'failed';
}
