import { medianOfSorted } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import type { z } from 'zod';
import { defaultSparkConfLimits, SparkConfCollector, type SparkConfLimits } from './environment-reader.js';
import { handledEvents, isHandledEvent, isKnownEvent } from './event-names.js';
import { GrowableFloat64Array } from './growable-array.js';
import { bytesEqual, decodeStringContent, forEachEntry, skipSpace } from './json-scan.js';
import type { OverlongLine } from './line-splitter.js';
import { describeParseIssue, ParseIssues } from './parse-issues.js';
import { defaultProfileCaps, type ProfileCaps } from './profile-caps.js';
import type {
  ExecutorProfile,
  JobProfile,
  ParseReport,
  SqlExecutionProfile,
  StageProfile,
  TaskMetricTotals,
} from './run-profile.js';
import {
  applicationEndSchema,
  applicationStartSchema,
  blockManagerAddedSchema,
  databricksMetadataSchema,
  executorAddedSchema,
  executorRemovedSchema,
  jobEndSchema,
  jobStartSchema,
  logStartSchema,
  type StageInfoEvent,
  sqlExecutionEndSchema,
  sqlExecutionStartSchema,
  stageEventSchema,
} from './schema.js';
import { readTaskEnd, type TaskEndRecord } from './task-end-reader.js';

type Json = Record<string, unknown>;

const eventPrefix = Buffer.from('{"Event":"', 'latin1');
const accumulablesKey = '"Accumulables":[';
const afterTaskInfoAccumulables = ']},"Task ';
/** Flat objects of numbers inside TaskEnd that nothing here reads, in the order Spark writes them. */
const unusedFlatObjectKeys = ['"Task Executor Metrics":{', '"Push Based Shuffle":{'];
const physicalPlanKey = ',"physicalPlanDescription":';
const timeKey = ',"time":';
const sparkContextIdPattern = /"SparkContext Id"\s*:\s*(-?\d+)/;

interface StageAttemptState {
  stageId: number;
  attemptId: number;
  name: string;
  numTasks: number;
  parentIds: number[];
  jobIds: Set<number>;
  submitted: boolean;
  completed: boolean;
  failureReason: string | null;
  submissionTime: number | null;
  completionTime: number | null;
  firstTaskLaunchedTime: number | null;
  totals: TaskMetricTotals;
  durations: GrowableFloat64Array;
  unsuccessfulDurations: GrowableFloat64Array;
  executorCpuTimeNs: number;
  shuffleWriteTimeNs: number;
}

interface ExecutorState {
  id: string;
  host: string | null;
  cores: number;
  addedTime: number | null;
  removedTime: number | null;
  removedReason: string | null;
  fromExecutorAdded: boolean;
  tasks: number;
  failedTasks: number;
  taskTimeMs: number;
  jvmGcTimeMs: number;
  inputBytes: number;
  shuffleReadBytes: number;
  shuffleWriteBytes: number;
}

interface JobState {
  jobId: number;
  submissionTime: number | null;
  completionTime: number | null;
  result: string | null;
  stageIds: number[];
  sqlExecutionId: number | null;
  tasks: number;
  failedTasks: number;
  killedTasks: number;
}

interface SqlState {
  executionId: number;
  description: string;
  startTime: number | null;
  endTime: number | null;
  errorMessage: string | null;
  jobIds: number[];
}

/** What the aggregator collected; `build-run-profile.ts` turns it into a RunProfile. */
export interface AggregatedRun {
  application: {
    id: string | null;
    name: string | null;
    attemptId: string | null;
    sparkVersion: string | null;
    user: string | null;
    startTime: number | null;
    endTime: number | null;
    exitCode: number | null;
    sparkContextId: string | null;
    firstTimestamp: number | null;
    lastTimestamp: number | null;
  };
  /** Allow-listed Spark properties, secrets redacted (spark-conf-policy.ts). */
  sparkConf: Record<string, string>;
  hosts: string[];
  executors: ExecutorProfile[];
  executorsAdded: number;
  executorsRemoved: number;
  maxConcurrentExecutors: number;
  jobs: JobProfile[];
  stages: StageProfile[];
  sqlExecutions: SqlExecutionProfile[];
  /** Per-stage task launch times, kept out of the profile; used to measure task concurrency. */
  taskLaunchTimes: Map<string, Float64Array>;
  parse: ParseReport;
}

/** What a parse report counts (bytes, lines, events) before anything is read. */
export type ParseCounts = Omit<ParseReport, 'warnings' | 'issues' | 'sparkProperties'>;

/** The counts a parse starts from; all a profile no event log went into has (`profile-without-log.ts`). */
export function emptyParseCounts(): ParseCounts {
  return {
    bytesRead: 0,
    storedBytesRead: 0,
    lines: 0,
    events: 0,
    malformedLines: 0,
    skippedEvents: 0,
    unknownEvents: 0,
  };
}

export function emptyMetricTotals(): TaskMetricTotals {
  return {
    tasks: 0,
    failedTasks: 0,
    killedTasks: 0,
    speculativeTasks: 0,
    executorRunTimeMs: 0,
    executorCpuTimeMs: 0,
    executorDeserializeTimeMs: 0,
    jvmGcTimeMs: 0,
    resultSerializationTimeMs: 0,
    resultSizeBytes: 0,
    inputBytes: 0,
    inputRecords: 0,
    outputBytes: 0,
    outputRecords: 0,
    shuffleReadBytes: 0,
    shuffleRemoteBytesRead: 0,
    shuffleLocalBytesRead: 0,
    shuffleReadRecords: 0,
    shuffleFetchWaitTimeMs: 0,
    shuffleWriteBytes: 0,
    shuffleWriteRecords: 0,
    shuffleWriteTimeMs: 0,
    memoryBytesSpilled: 0,
    diskBytesSpilled: 0,
    peakExecutionMemoryBytes: 0,
  };
}

function addTask(totals: TaskMetricTotals, task: TaskEndRecord): void {
  totals.tasks++;
  if (task.outcome === 'failed') totals.failedTasks++;
  else if (task.outcome === 'killed') totals.killedTasks++;
  if (task.speculative) totals.speculativeTasks++;
  totals.executorRunTimeMs += task.executorRunTimeMs;
  totals.executorDeserializeTimeMs += task.executorDeserializeTimeMs;
  totals.jvmGcTimeMs += task.jvmGcTimeMs;
  totals.resultSerializationTimeMs += task.resultSerializationTimeMs;
  totals.resultSizeBytes += task.resultSizeBytes;
  totals.inputBytes += task.inputBytes;
  totals.inputRecords += task.inputRecords;
  totals.outputBytes += task.outputBytes;
  totals.outputRecords += task.outputRecords;
  totals.shuffleRemoteBytesRead += task.shuffleRemoteBytesRead;
  totals.shuffleLocalBytesRead += task.shuffleLocalBytesRead;
  totals.shuffleReadBytes += task.shuffleRemoteBytesRead + task.shuffleLocalBytesRead;
  totals.shuffleReadRecords += task.shuffleReadRecords;
  totals.shuffleFetchWaitTimeMs += task.shuffleFetchWaitTimeMs;
  totals.shuffleWriteBytes += task.shuffleWriteBytes;
  totals.shuffleWriteRecords += task.shuffleWriteRecords;
  totals.memoryBytesSpilled += task.memoryBytesSpilled;
  totals.diskBytesSpilled += task.diskBytesSpilled;
  totals.peakExecutionMemoryBytes = Math.max(totals.peakExecutionMemoryBytes, task.peakExecutionMemoryBytes);
}

export interface AggregatorLimits
  extends SparkConfLimits,
    Pick<ProfileCaps, 'maxNameChars' | 'maxDescriptionChars'> {
  /** Characters kept of one free text (SQL description, failure reason, stage name…). */
  maxTextChars: number;
}

export const defaultAggregatorLimits: AggregatorLimits = {
  ...defaultSparkConfLimits,
  maxTextChars: 4096,
  // names and SQL descriptions are held per stage and per query while the log is read: cut them as
  // short as the profile keeps them (profile-caps.ts), so tens of thousands of them cost little
  maxNameChars: defaultProfileCaps.maxNameChars,
  maxDescriptionChars: defaultProfileCaps.maxDescriptionChars,
};

function stageKey(stageId: number, attemptId: number): string {
  return `${stageId}.${attemptId}`;
}

/**
 * Streams event-log lines into per-stage, per-job and per-executor aggregates. Memory grows only
 * with the number of stages, jobs and executors, plus 16 bytes per task (duration, launch time).
 */
export class RunAggregator {
  private readonly application: AggregatedRun['application'] = {
    id: null,
    name: null,
    attemptId: null,
    sparkVersion: null,
    user: null,
    startTime: null,
    endTime: null,
    exitCode: null,
    sparkContextId: null,
    firstTimestamp: null,
    lastTimestamp: null,
  };
  private databricksSparkVersion: string | null = null;
  private readonly sparkContextIds = new Set<string>();
  private readonly sparkConf: SparkConfCollector;
  private readonly issues = new ParseIssues();
  private readonly stages = new Map<string, StageAttemptState>();
  private readonly attemptsOfStage = new Map<number, StageAttemptState[]>();
  private readonly stageInfos = new Map<number, StageInfoEvent>();
  private readonly stageJobs = new Map<number, Set<number>>();
  private readonly launchTimes = new Map<string, GrowableFloat64Array>();
  private readonly executors = new Map<string, ExecutorState>();
  private readonly jobs = new Map<number, JobState>();
  private readonly sql = new Map<number, SqlState>();
  private executorsAdded = 0;
  private executorsRemoved = 0;
  private liveExecutors = 0;
  private maxLiveExecutors = 0;
  private readonly report: Omit<ParseReport, 'issues' | 'sparkProperties'> = {
    ...emptyParseCounts(),
    warnings: [],
  };
  private cutLines = 0;
  private badShapes = 0;
  private readonly malformedSamples: number[] = [];

  constructor(private readonly limits: AggregatorLimits = defaultAggregatorLimits) {
    this.sparkConf = new SparkConfCollector(limits);
  }

  /** Feeds one line (without its terminator). `cut` marks a final line that had no "\n". */
  acceptLine(buffer: Buffer, start: number, end: number, cut: boolean): void {
    this.report.lines++;
    this.report.bytesRead += end - start + (cut ? 0 : 1);
    while (start < end && (buffer[start] === 0x20 || buffer[start] === 0x09)) start++;
    if (start === end) return;
    const name = eventNameAt(buffer, start, end);
    if (name === undefined) {
      this.acceptUnprefixedLine(buffer, start, end, cut);
      return;
    }
    if (!isHandledEvent(name)) {
      if (buffer[end - 1] !== 0x7d) {
        this.malformed(cut);
        return;
      }
      this.skip(name);
      return;
    }
    if (name === handledEvents.environmentUpdate) {
      this.acceptEnvironmentUpdate(buffer, start, end, cut);
      return;
    }
    const event = this.parseHandled(name, buffer, start, end);
    if (event === undefined) {
      this.malformed(cut);
      return;
    }
    this.report.events++;
    this.dispatch(name, event, buffer, start, end);
  }

  /**
   * A TaskEnd line read on another thread (`readTaskEndLine`, which left it to `acceptLine` unless it
   * read a task): counted and applied as `acceptLine` would have, in the place of that line.
   * `lineBytes` is the line's length without its terminator.
   */
  acceptReadTaskEnd(lineBytes: number, task: TaskEndRecord): void {
    this.report.lines++;
    this.report.bytesRead += lineBytes + 1;
    this.report.events++;
    this.applyTaskEnd(task);
  }

  /** A line whose event the aggregator skips (`isSkippedEventLine`), counted as `acceptLine` counts it. */
  acceptSkippedEventLine(lineBytes: number, name: string): void {
    this.report.lines++;
    this.report.bytesRead += lineBytes + 1;
    this.skip(name);
  }

  /** `count` empty lines in a row. */
  acceptBlankLines(count: number): void {
    this.report.lines += count;
    this.report.bytesRead += count;
  }

  /** A line longer than the line limit, skipped by the splitter: it counts, and is reported. */
  acceptOverlongLine(line: OverlongLine): void {
    this.report.lines++;
    this.report.bytesRead += line.bytes + 1;
    const name = eventNameAt(line.head, 0, line.head.length);
    this.issues.add('line-too-long', {
      line: line.lineNumber,
      detail: name ?? 'not an event',
      count: 1,
    });
  }

  hasEvents(): boolean {
    return this.report.events > 0;
  }

  addStoredBytes(bytes: number): void {
    this.report.storedBytesRead += bytes;
  }

  warn(message: string): void {
    this.report.warnings.push(message);
  }

  /** A line whose "Event" is not its first key: found with the scanner, then parsed only if needed. */
  private acceptUnprefixedLine(buffer: Buffer, start: number, end: number, cut: boolean): void {
    let name: string | undefined;
    const after = forEachEntry(buffer, start, end, (entry) => {
      if (
        name === undefined &&
        buffer[entry.valueStart] === 0x22 &&
        bytesEqual(buffer, entry.keyStart, entry.keyEnd, 'Event')
      ) {
        name = decodeStringContent(buffer, entry.valueStart + 1, entry.valueEnd - 1);
      }
    });
    if (after === -1 || skipSpace(buffer, after, end) !== end || name === undefined) {
      this.malformed(cut);
      return;
    }
    if (!isHandledEvent(name)) {
      this.skip(name);
      return;
    }
    if (name === handledEvents.environmentUpdate) {
      this.acceptEnvironmentUpdate(buffer, start, end, cut);
      return;
    }
    const event = tryParseObject(buffer.toString('utf8', start, end));
    if (event === undefined) {
      this.malformed(cut);
      return;
    }
    this.report.events++;
    this.dispatch(name, event, buffer, start, end);
  }

  private acceptEnvironmentUpdate(buffer: Buffer, start: number, end: number, cut: boolean): void {
    if (!this.sparkConf.readEnvironmentUpdate(buffer, start, end)) {
      this.malformed(cut);
      return;
    }
    this.report.events++;
  }

  /** Free text from the log, cut to `chars` (a SQL description can be a whole query file). */
  private text(value: string, chars?: number): string;
  private text(value: string | null, chars?: number): string | null;
  private text(value: string | null, chars = this.limits.maxTextChars): string | null {
    if (value === null || value.length <= chars) return value;
    this.issues.add('text-truncated');
    return `${value.slice(0, chars)}…(truncated)`;
  }

  /** A stage name or an executor's host: cut to `maxNameChars`. */
  private name(value: string): string;
  private name(value: string | null): string | null;
  private name(value: string | null): string | null {
    return this.text(value, this.limits.maxNameChars);
  }

  private skip(name: string): void {
    this.report.events++;
    this.report.skippedEvents++;
    if (!isKnownEvent(name)) {
      this.report.unknownEvents++;
    }
  }

  private malformed(cut: boolean): void {
    this.report.malformedLines++;
    if (cut) this.cutLines++;
    else if (this.malformedSamples.length < 5) this.malformedSamples.push(this.report.lines);
  }

  /** Parses a handled event, leaving out the parts nothing here reads (task accumulables, SQL plans). */
  private parseHandled(name: string, buffer: Buffer, start: number, end: number): Json | undefined {
    return parseHandledLine(name, buffer.toString('utf8', start, end));
  }

  private dispatch(name: string, event: Json, buffer: Buffer, start: number, end: number): void {
    switch (name) {
      case handledEvents.taskEnd:
        this.onTaskEnd(event);
        break;
      case handledEvents.logStart:
        this.withShape(logStartSchema, event, (e) => {
          this.application.sparkVersion ??= e['Spark Version'] ?? null;
        });
        break;
      case handledEvents.databricksMetadata:
        this.withShape(databricksMetadataSchema, event, (e) => {
          this.databricksSparkVersion ??= e['Spark Version'] ?? null;
          this.seeTime(e.Timestamp);
          const contextId = sparkContextIdPattern.exec(
            buffer.toString('latin1', start, Math.min(end, start + 4096)),
          );
          if (contextId?.[1]) {
            this.sparkContextIds.add(contextId[1]);
            this.application.sparkContextId ??= contextId[1];
          }
        });
        break;
      case handledEvents.applicationStart:
        this.withShape(applicationStartSchema, event, (e) => {
          this.application.name = this.text(e['App Name'] ?? this.application.name);
          this.application.id = this.text(e['App ID'] ?? this.application.id);
          this.application.attemptId = this.text(e['App Attempt ID'] ?? this.application.attemptId);
          this.application.user = this.text(e.User ?? this.application.user);
          this.application.startTime = e.Timestamp ?? this.application.startTime;
          this.seeTime(e.Timestamp);
        });
        break;
      case handledEvents.applicationEnd:
        this.withShape(applicationEndSchema, event, (e) => {
          this.application.endTime = e.Timestamp ?? null;
          this.application.exitCode = e.ExitCode ?? null;
          this.seeTime(e.Timestamp);
        });
        break;
      case handledEvents.executorAdded:
        this.withShape(executorAddedSchema, event, (e) => this.onExecutorAdded(e));
        break;
      case handledEvents.executorRemoved:
        this.withShape(executorRemovedSchema, event, (e) => {
          const executor = this.executor(e['Executor ID']);
          if (executor.removedTime === null && executor.fromExecutorAdded) this.liveExecutors--;
          executor.removedTime = e.Timestamp ?? null;
          executor.removedReason = this.text(e['Removed Reason'] ?? null);
          this.executorsRemoved++;
          this.seeTime(e.Timestamp);
        });
        break;
      case handledEvents.blockManagerAdded:
        this.withShape(blockManagerAddedSchema, event, (e) => {
          const executor = this.executor(e['Block Manager ID']['Executor ID']);
          executor.host ??= this.name(e['Block Manager ID'].Host ?? null);
          executor.addedTime ??= e.Timestamp ?? null;
          this.seeTime(e.Timestamp);
        });
        break;
      case handledEvents.jobStart:
        this.withShape(jobStartSchema, event, (e) => this.onJobStart(e));
        break;
      case handledEvents.jobEnd:
        this.withShape(jobEndSchema, event, (e) => {
          const job = this.job(e['Job ID']);
          job.completionTime = e['Completion Time'] ?? null;
          job.result = e['Job Result']?.Result ?? 'JobSucceeded';
          this.seeTime(e['Completion Time']);
        });
        break;
      case handledEvents.stageSubmitted:
        this.withShape(stageEventSchema, event, (e) => {
          const stage = this.stageFromInfo(e['Stage Info']);
          stage.submitted = true;
        });
        break;
      case handledEvents.stageCompleted:
        this.withShape(stageEventSchema, event, (e) => {
          const stage = this.stageFromInfo(e['Stage Info']);
          stage.submitted = true;
          stage.completed = true;
          stage.failureReason = this.text(e['Stage Info']['Failure Reason'] ?? null);
          this.seeTime(e['Stage Info']['Completion Time']);
        });
        break;
      case handledEvents.sqlExecutionStart:
        this.withShape(sqlExecutionStartSchema, event, (e) => {
          const execution = this.sqlExecution(e.executionId);
          execution.description = this.text(
            e.description ?? execution.description,
            this.limits.maxDescriptionChars,
          );
          execution.startTime = e.time ?? null;
          this.seeTime(e.time);
        });
        break;
      case handledEvents.sqlExecutionEnd:
        this.withShape(sqlExecutionEndSchema, event, (e) => {
          const execution = this.sqlExecution(e.executionId);
          execution.endTime = e.time ?? null;
          execution.errorMessage = e.errorMessage ? this.text(e.errorMessage) : null;
          this.seeTime(e.time);
        });
        break;
    }
  }

  private withShape<T>(schema: z.ZodType<T>, event: Json, apply: (event: T) => void): void {
    const parsed = schema.safeParse(event);
    if (parsed.success) apply(parsed.data);
    else this.badShapes++;
  }

  private seeTime(time: number | undefined): void {
    if (time === undefined || time <= 0) return;
    if (this.application.firstTimestamp === null || time < this.application.firstTimestamp) {
      this.application.firstTimestamp = time;
    }
    if (this.application.lastTimestamp === null || time > this.application.lastTimestamp) {
      this.application.lastTimestamp = time;
    }
  }

  private onTaskEnd(event: Json): void {
    const task = readTaskEnd(event);
    if (!task) {
      this.badShapes++;
      return;
    }
    this.applyTaskEnd(task);
  }

  private applyTaskEnd(task: TaskEndRecord): void {
    const stage = this.stage(task.stageId, task.stageAttemptId);
    addTask(stage.totals, task);
    stage.executorCpuTimeNs += task.executorCpuTimeNs;
    stage.shuffleWriteTimeNs += task.shuffleWriteTimeNs;
    const durationMs =
      task.finishTime > 0 && task.launchTime > 0 ? Math.max(0, task.finishTime - task.launchTime) : 0;
    if (task.outcome === 'success') stage.durations.push(durationMs);
    else stage.unsuccessfulDurations.push(durationMs);
    if (task.launchTime > 0) {
      if (stage.firstTaskLaunchedTime === null || task.launchTime < stage.firstTaskLaunchedTime) {
        stage.firstTaskLaunchedTime = task.launchTime;
      }
      this.launches(stage).push(task.launchTime);
      this.launches(stage).push(task.finishTime > 0 ? task.finishTime : task.launchTime);
    }
    this.seeTime(task.finishTime);
    const executor = this.executor(task.executorId);
    executor.tasks++;
    if (task.outcome === 'failed') executor.failedTasks++;
    executor.taskTimeMs += durationMs;
    executor.jvmGcTimeMs += task.jvmGcTimeMs;
    executor.inputBytes += task.inputBytes;
    executor.shuffleReadBytes += task.shuffleRemoteBytesRead + task.shuffleLocalBytesRead;
    executor.shuffleWriteBytes += task.shuffleWriteBytes;
    for (const jobId of stage.jobIds) {
      const job = this.jobs.get(jobId);
      if (!job) continue;
      job.tasks++;
      if (task.outcome === 'failed') job.failedTasks++;
      else if (task.outcome === 'killed') job.killedTasks++;
    }
  }

  private launches(stage: StageAttemptState): GrowableFloat64Array {
    const key = stageKey(stage.stageId, stage.attemptId);
    let launches = this.launchTimes.get(key);
    if (!launches) {
      launches = new GrowableFloat64Array();
      this.launchTimes.set(key, launches);
    }
    return launches;
  }

  private onExecutorAdded(event: z.infer<typeof executorAddedSchema>): void {
    const executor = this.executor(event['Executor ID']);
    if (!executor.fromExecutorAdded || executor.removedTime !== null) {
      this.liveExecutors++;
      this.maxLiveExecutors = Math.max(this.maxLiveExecutors, this.liveExecutors);
    }
    executor.fromExecutorAdded = true;
    executor.host = this.name(event['Executor Info']?.Host ?? executor.host);
    executor.cores = event['Executor Info']?.['Total Cores'] ?? executor.cores;
    executor.addedTime = event.Timestamp ?? executor.addedTime;
    executor.removedTime = null;
    this.executorsAdded++;
    this.seeTime(event.Timestamp);
  }

  private onJobStart(event: z.infer<typeof jobStartSchema>): void {
    const job = this.job(event['Job ID']);
    job.submissionTime = event['Submission Time'] ?? null;
    job.stageIds = event['Stage IDs'] ?? (event['Stage Infos'] ?? []).map((info) => info['Stage ID']);
    const sqlId = event.Properties?.['spark.sql.execution.id'];
    if (sqlId !== undefined && /^\d+$/.test(sqlId)) {
      job.sqlExecutionId = Number(sqlId);
      this.sqlExecution(job.sqlExecutionId).jobIds.push(job.jobId);
    }
    for (const info of event['Stage Infos'] ?? []) {
      if (this.stageInfos.has(info['Stage ID'])) continue;
      const name = info['Stage Name'];
      this.stageInfos.set(
        info['Stage ID'],
        name === undefined ? info : { ...info, 'Stage Name': this.name(name) },
      );
    }
    for (const stageId of job.stageIds) {
      let jobIds = this.stageJobs.get(stageId);
      if (!jobIds) {
        jobIds = new Set();
        this.stageJobs.set(stageId, jobIds);
      }
      jobIds.add(job.jobId);
      for (const stage of this.attemptsOfStage.get(stageId) ?? []) stage.jobIds.add(job.jobId);
    }
    this.seeTime(event['Submission Time']);
  }

  private stageFromInfo(info: StageInfoEvent): StageAttemptState {
    const stage = this.stage(info['Stage ID'], info['Stage Attempt ID'] ?? 0);
    stage.name = this.name(info['Stage Name'] ?? stage.name);
    stage.numTasks = info['Number of Tasks'] ?? stage.numTasks;
    stage.parentIds = info['Parent IDs'] ?? stage.parentIds;
    stage.submissionTime = info['Submission Time'] ?? stage.submissionTime;
    stage.completionTime = info['Completion Time'] ?? stage.completionTime;
    this.seeTime(info['Submission Time']);
    return stage;
  }

  private stage(stageId: number, attemptId: number): StageAttemptState {
    const key = stageKey(stageId, attemptId);
    let stage = this.stages.get(key);
    if (!stage) {
      const info = this.stageInfos.get(stageId);
      stage = {
        stageId,
        attemptId,
        name: this.name(info?.['Stage Name'] ?? ''),
        numTasks: info?.['Number of Tasks'] ?? 0,
        parentIds: info?.['Parent IDs'] ?? [],
        jobIds: new Set(this.stageJobs.get(stageId) ?? []),
        submitted: false,
        completed: false,
        failureReason: null,
        submissionTime: null,
        completionTime: null,
        firstTaskLaunchedTime: null,
        totals: emptyMetricTotals(),
        durations: new GrowableFloat64Array(),
        unsuccessfulDurations: new GrowableFloat64Array(),
        executorCpuTimeNs: 0,
        shuffleWriteTimeNs: 0,
      };
      this.stages.set(key, stage);
      const attempts = this.attemptsOfStage.get(stageId);
      if (attempts) attempts.push(stage);
      else this.attemptsOfStage.set(stageId, [stage]);
    }
    return stage;
  }

  private executor(id: string): ExecutorState {
    let executor = this.executors.get(id);
    if (!executor) {
      executor = {
        id,
        host: null,
        cores: 0,
        addedTime: null,
        removedTime: null,
        removedReason: null,
        fromExecutorAdded: false,
        tasks: 0,
        failedTasks: 0,
        taskTimeMs: 0,
        jvmGcTimeMs: 0,
        inputBytes: 0,
        shuffleReadBytes: 0,
        shuffleWriteBytes: 0,
      };
      this.executors.set(id, executor);
    }
    return executor;
  }

  private job(jobId: number): JobState {
    let job = this.jobs.get(jobId);
    if (!job) {
      job = {
        jobId,
        submissionTime: null,
        completionTime: null,
        result: null,
        stageIds: [],
        sqlExecutionId: null,
        tasks: 0,
        failedTasks: 0,
        killedTasks: 0,
      };
      this.jobs.set(jobId, job);
    }
    return job;
  }

  private sqlExecution(executionId: number): SqlState {
    let execution = this.sql.get(executionId);
    if (!execution) {
      execution = {
        executionId,
        description: '',
        startTime: null,
        endTime: null,
        errorMessage: null,
        jobIds: [],
      };
      this.sql.set(executionId, execution);
    }
    return execution;
  }

  /** Ends the stream and returns the aggregates (call once). */
  finish(): AggregatedRun {
    const application = { ...this.application };
    application.sparkVersion ??= this.databricksSparkVersion;
    this.addFinishWarnings(application);
    const stages = [...this.stages.values()]
      .sort((a, b) => a.stageId - b.stageId || a.attemptId - b.attemptId)
      .map((stage) => this.stageProfile(stage));
    const endedJobs = new Set(
      [...this.jobs.values()].filter((job) => job.result !== null).map((job) => job.jobId),
    );
    for (const stage of stages) {
      const everyJobEnded = stage.jobIds.length > 0 && stage.jobIds.every((jobId) => endedJobs.has(jobId));
      if (stage.status === 'PENDING' && everyJobEnded) stage.status = 'SKIPPED';
    }
    this.addSkippedStages(stages, endedJobs);
    return {
      application,
      sparkConf: this.sparkConf.conf(),
      hosts: [
        ...new Set([...this.executors.values()].map((e) => e.host).filter((h): h is string => h !== null)),
      ],
      executors: [...this.executors.values()].map(({ fromExecutorAdded: _, ...executor }) => executor),
      executorsAdded: this.executorsAdded,
      executorsRemoved: this.executorsRemoved,
      maxConcurrentExecutors: this.maxLiveExecutors,
      jobs: [...this.jobs.values()]
        .sort((a, b) => a.jobId - b.jobId)
        .map(({ result, ...job }) => ({
          ...job,
          status: result === null ? 'RUNNING' : result === 'JobSucceeded' ? 'SUCCEEDED' : 'FAILED',
        })),
      stages,
      sqlExecutions: [...this.sql.values()]
        .sort((a, b) => a.executionId - b.executionId)
        .map((execution) => ({
          ...execution,
          durationMs:
            execution.startTime !== null && execution.endTime !== null
              ? Math.max(0, execution.endTime - execution.startTime)
              : null,
        })),
      taskLaunchTimes: new Map([...this.launchTimes].map(([key, times]) => [key, times.view()])),
      parse: {
        ...this.report,
        issues: this.issues.list(describeParseIssue),
        sparkProperties: {
          seen: this.sparkConf.counts.seen,
          kept: this.sparkConf.counts.kept,
          redacted: this.sparkConf.counts.redacted,
        },
      },
    };
  }

  /** Stages a job listed but never submitted (their output was reused) are SKIPPED, as in Spark's UI. */
  private addSkippedStages(stages: StageProfile[], endedJobs: Set<number>): void {
    const present = new Set(stages.map((stage) => stage.stageId));
    for (const [stageId, info] of this.stageInfos) {
      if (present.has(stageId)) continue;
      const jobIds = [...(this.stageJobs.get(stageId) ?? [])];
      const ended = jobIds.length > 0 && jobIds.every((jobId) => endedJobs.has(jobId));
      stages.push({
        ...emptyMetricTotals(),
        stageId,
        attemptId: info['Stage Attempt ID'] ?? 0,
        name: this.name(info['Stage Name'] ?? ''),
        numTasks: info['Number of Tasks'] ?? 0,
        parentIds: info['Parent IDs'] ?? [],
        jobIds,
        status: ended ? 'SKIPPED' : 'PENDING',
        failureReason: null,
        submissionTime: null,
        firstTaskLaunchedTime: null,
        completionTime: null,
        taskDurationsMs: [],
        unsuccessfulTaskDurationsMs: [],
        medianTaskMs: 0,
        maxTaskMs: 0,
        skewRatio: 1,
      });
    }
    stages.sort((a, b) => a.stageId - b.stageId || a.attemptId - b.attemptId);
  }

  private stageProfile(stage: StageAttemptState): StageProfile {
    const durations = Float64Array.from(stage.durations.view());
    const sorted = Float64Array.from(durations).sort();
    const medianTaskMs = sorted.length > 0 ? medianOfSorted(sorted) : 0;
    const maxTaskMs = sorted.length > 0 ? sorted[sorted.length - 1]! : 0;
    const status: StageProfile['status'] = stage.completed
      ? stage.failureReason !== null
        ? 'FAILED'
        : 'COMPLETE'
      : stage.submitted || stage.totals.tasks > 0
        ? 'ACTIVE'
        : 'PENDING';
    return {
      ...stage.totals,
      executorCpuTimeMs: stage.executorCpuTimeNs / 1e6,
      shuffleWriteTimeMs: stage.shuffleWriteTimeNs / 1e6,
      stageId: stage.stageId,
      attemptId: stage.attemptId,
      name: stage.name,
      numTasks: stage.numTasks,
      parentIds: stage.parentIds,
      jobIds: [...stage.jobIds].sort((a, b) => a - b),
      status,
      failureReason: stage.failureReason,
      submissionTime: stage.submissionTime,
      firstTaskLaunchedTime: stage.firstTaskLaunchedTime,
      completionTime: stage.completionTime,
      taskDurationsMs: Array.from(durations),
      unsuccessfulTaskDurationsMs: Array.from(stage.unsuccessfulDurations.view()),
      medianTaskMs,
      maxTaskMs,
      skewRatio: medianTaskMs > 0 ? maxTaskMs / medianTaskMs : 1,
    };
  }

  private addFinishWarnings(application: AggregatedRun['application']): void {
    const { overLimit, truncated } = this.sparkConf.counts;
    if (overLimit > 0) this.issues.add('spark-conf-capped', { count: overLimit });
    if (truncated > 0) this.issues.add('spark-conf-truncated', { count: truncated });
    const warn = (message: string) => this.report.warnings.push(message);
    if (this.cutLines > 0) warn('the last line is incomplete (the log was cut off while being written)');
    const midFile = this.report.malformedLines - this.cutLines;
    if (midFile > 0) {
      warn(
        `${countOf(midFile, 'line')} ${midFile === 1 ? 'is' : 'are'} not valid event JSON and ${midFile === 1 ? 'was' : 'were'} skipped (line ${this.malformedSamples.join(', ')}${midFile > this.malformedSamples.length ? ', …' : ''})`,
      );
    }
    if (this.badShapes > 0)
      warn(
        `${countOf(this.badShapes, 'event')} had an unexpected shape and ${this.badShapes === 1 ? 'was' : 'were'} ignored`,
      );
    if (application.endTime === null) {
      warn(
        'no SparkListenerApplicationEnd: the application was still running or its driver stopped abruptly',
      );
    }
    if (application.startTime === null)
      warn('no SparkListenerApplicationStart: application name and start are unknown');
    if (this.sparkContextIds.size > 1) {
      warn(
        `the log mixes ${this.sparkContextIds.size} Databricks SparkContext ids: ${[...this.sparkContextIds].join(', ')}`,
      );
    }
  }
}

/**
 * A TaskEnd line without its Task Info accumulables (they repeat Task Metrics), its Task Executor
 * Metrics and push-based shuffle metrics (flat objects of numbers): often two thirds of the line.
 * Spark writes these keys in a fixed order; a quote inside a JSON string is escaped, so the keys
 * cannot match inside values. Undefined when the line has neither part.
 */
function taskEndWithoutUnusedParts(line: string): string | undefined {
  let result = '';
  let cursor = 0;
  const accumulables = line.indexOf(accumulablesKey);
  if (accumulables !== -1) {
    const after = line.indexOf(afterTaskInfoAccumulables, accumulables);
    if (after !== -1) {
      result = line.slice(0, accumulables + accumulablesKey.length);
      cursor = after;
    }
  }
  for (const key of unusedFlatObjectKeys) {
    const at = line.indexOf(key, cursor);
    if (at === -1) continue;
    const close = line.indexOf('}', at + key.length);
    if (close === -1) continue;
    result += line.slice(cursor, at + key.length);
    cursor = close;
  }
  return cursor === 0 ? undefined : result + line.slice(cursor);
}

/** A SQLExecutionStart line without its physical plan text and plan tree (often megabytes). */
function sqlStartWithoutPlan(line: string): string | undefined {
  const plan = line.indexOf(physicalPlanKey);
  const time = line.lastIndexOf(timeKey);
  return plan !== -1 && time > plan ? line.slice(0, plan) + line.slice(time) : undefined;
}

/** The name of the event of a line that starts `{"Event":"<name>"`, as Spark writes it; else undefined. */
function eventNameAt(buffer: Buffer, start: number, end: number): string | undefined {
  if (end - start < eventPrefix.length + 2) return undefined;
  for (let index = 0; index < eventPrefix.length; index++) {
    if (buffer[start + index] !== eventPrefix[index]) return undefined;
  }
  const nameStart = start + eventPrefix.length;
  const nameEnd = buffer.indexOf(0x22, nameStart);
  if (nameEnd === -1 || nameEnd >= end) return undefined;
  return buffer.toString('latin1', nameStart, nameEnd);
}

/** A handled event's line parsed without the parts nothing here reads (task accumulables, SQL plans). */
function parseHandledLine(name: string, line: string): Json | undefined {
  let trimmed: string | undefined;
  if (name === handledEvents.taskEnd) trimmed = taskEndWithoutUnusedParts(line);
  else if (name === handledEvents.sqlExecutionStart) trimmed = sqlStartWithoutPlan(line);
  if (trimmed !== undefined) {
    const parsed = tryParseObject(trimmed);
    if (parsed) return parsed;
  }
  return tryParseObject(line);
}

/**
 * How `acceptLine` reads the line `buffer[start, end)` (no terminator, not the last line of a log
 * that lacks its "\n"), for the lines another thread may read in its place: a TaskEnd's task, or a
 * skipped event's name. Undefined for every other line (other events, malformed TaskEnds, TaskEnds
 * without a task's fields, lines that do not start with `{"Event":`), which `acceptLine` reads itself.
 */
export function readLineAhead(
  buffer: Buffer,
  start: number,
  end: number,
): { task: TaskEndRecord } | { skipped: string } | undefined {
  const name = eventNameAt(buffer, start, end);
  if (name === undefined) return undefined;
  if (name === handledEvents.taskEnd) {
    const event = parseHandledLine(name, buffer.toString('utf8', start, end));
    const task = event && readTaskEnd(event);
    return task ? { task } : undefined;
  }
  if (isHandledEvent(name) || buffer[end - 1] !== 0x7d) return undefined;
  return { skipped: name };
}

function tryParseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
