/**
 * RunProfile: the one document Setpoint derives from a Spark event log. The optimizer, cost engine,
 * emulator and dashboard consume it; `schemaVersion` changes on any incompatible change.
 *
 * Units: durations in milliseconds (`…Ms`), sizes in bytes, timestamps in epoch milliseconds.
 * `application.durationMs` is ApplicationEnd − ApplicationStart, and null when the log has no
 * ApplicationEnd; `application.observedSpanMs` is always the span of the timestamps seen.
 */
import { z } from 'zod';

export const runProfileSchemaVersion = 1;

const epochMs = z.number().int();
const nullableEpochMs = epochMs.nullable();
const count = z.number().int().nonnegative();
const bytes = z.number().nonnegative();
const millis = z.number().nonnegative();

export const severitySchema = z.enum(['info', 'low', 'moderate', 'severe', 'critical']);

export const findingSchema = z.object({
  id: z.string(),
  severity: severitySchema,
  message: z.string(),
  stageIds: z.array(z.number().int()).optional(),
});

export const platformKindSchema = z.enum([
  'databricks',
  'emr',
  'dataproc',
  'yarn',
  'kubernetes',
  'standalone',
  'local',
  'unknown',
]);

export const platformHintsSchema = z.object({
  kind: platformKindSchema,
  master: z.string().nullable(),
  cloud: z.string().nullable(),
  region: z.string().nullable(),
  workerNodeType: z.string().nullable(),
  driverNodeType: z.string().nullable(),
  workers: z.number().int().nullable(),
  autoscale: z.object({ minWorkers: z.number().int(), maxWorkers: z.number().int() }).nullable(),
  photon: z.boolean().nullable(),
  runtimeVersion: z.string().nullable(),
  clusterId: z.string().nullable(),
  availability: z.string().nullable(),
  /** Which facts identified the platform, e.g. `spark.databricks.clusterUsageTags.*`. */
  evidence: z.array(z.string()),
  /** The raw `spark.databricks.clusterUsageTags.*` values (key without the prefix). */
  databricksTags: z.record(z.string(), z.string()),
});

export const executorSchema = z.object({
  id: z.string(),
  host: z.string().nullable(),
  cores: z.number().int().nonnegative(),
  addedTime: nullableEpochMs,
  removedTime: nullableEpochMs,
  removedReason: z.string().nullable(),
  tasks: count,
  failedTasks: count,
  taskTimeMs: millis,
  jvmGcTimeMs: millis,
  inputBytes: bytes,
  shuffleReadBytes: bytes,
  shuffleWriteBytes: bytes,
});

export const jobSchema = z.object({
  jobId: z.number().int(),
  submissionTime: nullableEpochMs,
  completionTime: nullableEpochMs,
  status: z.enum(['SUCCEEDED', 'FAILED', 'RUNNING']),
  stageIds: z.array(z.number().int()),
  sqlExecutionId: z.number().int().nullable(),
  tasks: count,
  failedTasks: count,
  killedTasks: count,
});

export const taskMetricTotalsSchema = z.object({
  tasks: count,
  failedTasks: count,
  killedTasks: count,
  speculativeTasks: count,
  executorRunTimeMs: millis,
  executorCpuTimeMs: millis,
  executorDeserializeTimeMs: millis,
  jvmGcTimeMs: millis,
  resultSerializationTimeMs: millis,
  resultSizeBytes: bytes,
  inputBytes: bytes,
  inputRecords: count,
  outputBytes: bytes,
  outputRecords: count,
  shuffleReadBytes: bytes,
  shuffleRemoteBytesRead: bytes,
  shuffleLocalBytesRead: bytes,
  shuffleReadRecords: count,
  shuffleFetchWaitTimeMs: millis,
  shuffleWriteBytes: bytes,
  shuffleWriteRecords: count,
  shuffleWriteTimeMs: millis,
  memoryBytesSpilled: bytes,
  diskBytesSpilled: bytes,
  peakExecutionMemoryBytes: bytes,
});

export const stageSchema = taskMetricTotalsSchema.extend({
  stageId: z.number().int(),
  attemptId: z.number().int(),
  name: z.string(),
  numTasks: count,
  parentIds: z.array(z.number().int()),
  jobIds: z.array(z.number().int()),
  status: z.enum(['COMPLETE', 'FAILED', 'ACTIVE', 'PENDING', 'SKIPPED']),
  failureReason: z.string().nullable(),
  submissionTime: nullableEpochMs,
  firstTaskLaunchedTime: nullableEpochMs,
  completionTime: nullableEpochMs,
  /** Wall time of successful tasks (Finish − Launch), in the order they ended. */
  taskDurationsMs: z.array(millis),
  /** Wall time of failed and killed tasks; they held a slot too, so the replay schedules them. */
  unsuccessfulTaskDurationsMs: z.array(millis),
  medianTaskMs: millis,
  maxTaskMs: millis,
  /** maxTaskMs / medianTaskMs over successful tasks (1 when there are none). */
  skewRatio: z.number().nonnegative(),
});

export const sqlExecutionSchema = z.object({
  executionId: z.number().int(),
  description: z.string(),
  startTime: nullableEpochMs,
  endTime: nullableEpochMs,
  durationMs: millis.nullable(),
  jobIds: z.array(z.number().int()),
  errorMessage: z.string().nullable(),
});

export const totalsSchema = taskMetricTotalsSchema.extend({
  jobs: count,
  failedJobs: count,
  /** Stage attempts that completed successfully. */
  stages: count,
  failedStages: count,
  sqlExecutions: count,
});

export const analysisSchema = z.object({
  /** Application span used for the figures below (durationMs, else the observed span). */
  wallTimeMs: millis,
  /** Time when at least one job was running. */
  executorTimeMs: millis,
  /** Time with no job running: planning, driver-side code, collect, idle. */
  driverTimeMs: millis,
  /** Longest chain of stages in the DAG, each stage counted as its longest task. */
  criticalPathMs: millis,
  /** Driver time + total task time spread perfectly over all observed cores. */
  idealTimeMs: millis,
  coresObserved: count,
  coreHoursAvailable: z.number().nonnegative(),
  coreHoursUsed: z.number().nonnegative(),
  /**
   * Core time in tasks: coreHoursUsed / coreHoursAvailable, 0..1 (0 when nothing is available). Not the
   * core time on CPU (`coreTimeOnCpu`): a task waiting on I/O or shuffle holds its core without computing.
   */
  utilization: z.number().nonnegative(),
});

export const whatIfPointSchema = z.object({
  executors: z.number().int().positive(),
  estimatedDurationMs: millis,
  /** Task time / (estimated duration × slots), for the estimate. */
  estimatedUtilization: z.number().nonnegative(),
  observed: z.boolean(),
});

/**
 * Something in the log the reader tolerated but did not take whole. Fatal problems are errors
 * (EVENTLOG_TOO_LARGE, EVENTLOG_COMPRESSION_RATIO, EVENTLOG_CORRUPT, …), never issues.
 */
export const parseIssueSchema = z.object({
  code: z.enum([
    'line-too-long',
    'spark-conf-capped',
    'spark-conf-truncated',
    'text-truncated',
    'profile-capped',
  ]),
  /** Lines, keys or texts affected. */
  count: count,
  message: z.string(),
  /** Up to five line numbers, for line issues. */
  lines: z.array(z.number().int().positive()).optional(),
});

/** How many Spark properties the log held and how many the profile kept (see docs/eventlog.md). */
export const sparkPropertiesReportSchema = z.object({ seen: count, kept: count, redacted: count });

/**
 * What the profile left out of its lists (profile-caps.ts); `totals`, `analysis` and `findings` count
 * everything. Task durations beyond the per-stage cap are kept as a sample, not left out.
 */
export const profileOmissionsSchema = z.object({
  stages: count,
  /** Executor run time of the stages left out. */
  stageTaskTimeMs: millis,
  jobs: count,
  sqlExecutions: count,
  executors: count,
  taskDurations: count,
  /** Files of the log beyond those listed in `source.parts`. */
  parts: count.default(0),
  /** Reader warnings beyond those listed in `parse.warnings`. */
  warnings: count.default(0),
});

export const parseReportSchema = z.object({
  /** Uncompressed bytes of event-log lines read. */
  bytesRead: bytes,
  /** Stored (compressed) bytes of the files read. */
  storedBytesRead: bytes,
  lines: count,
  events: count,
  /** Non-blank lines that are not JSON objects with an "Event" (a cut last line counts here too). */
  malformedLines: count,
  /** Events skipped without parsing because nothing here needs them (SQL plans, block updates…). */
  skippedEvents: count,
  unknownEvents: count,
  warnings: z.array(z.string()),
  issues: z.array(parseIssueSchema).default([]),
  sparkProperties: sparkPropertiesReportSchema.default({ seen: 0, kept: 0, redacted: 0 }),
  omitted: profileOmissionsSchema.optional(),
});

export const sourceSchema = z.object({
  path: z.string(),
  layout: z.enum(['file', 'rolling', 'databricks']),
  inProgress: z.boolean(),
  parts: z.array(z.object({ name: z.string(), codec: z.string(), storedBytes: bytes })),
});

export const runProfileSchema = z.object({
  schemaVersion: z.literal(runProfileSchemaVersion),
  source: sourceSchema,
  application: z.object({
    id: z.string().nullable(),
    name: z.string().nullable(),
    attemptId: z.string().nullable(),
    sparkVersion: z.string().nullable(),
    user: z.string().nullable(),
    startTime: nullableEpochMs,
    endTime: nullableEpochMs,
    durationMs: millis.nullable(),
    observedSpanMs: millis.nullable(),
    exitCode: z.number().int().nullable(),
    sparkContextId: z.string().nullable(),
  }),
  platform: platformHintsSchema,
  /** The allow-listed Spark properties only, secret-looking values redacted (spark-conf-policy.ts). */
  sparkConf: z.record(z.string(), z.string()),
  executors: z.object({
    totalAdded: count,
    totalRemoved: count,
    maxConcurrent: count,
    /** The most common core count among executors (the driver in local mode). */
    coresPerExecutor: count,
    timeline: z.array(executorSchema),
  }),
  jobs: z.array(jobSchema),
  stages: z.array(stageSchema),
  sqlExecutions: z.array(sqlExecutionSchema),
  totals: totalsSchema,
  analysis: analysisSchema,
  whatIf: z.array(whatIfPointSchema),
  findings: z.array(findingSchema),
  parse: parseReportSchema,
});

export type RunProfile = z.infer<typeof runProfileSchema>;
export type StageProfile = z.infer<typeof stageSchema>;
export type JobProfile = z.infer<typeof jobSchema>;
export type ExecutorProfile = z.infer<typeof executorSchema>;
export type SqlExecutionProfile = z.infer<typeof sqlExecutionSchema>;
export type PlatformHints = z.infer<typeof platformHintsSchema>;
export type Finding = z.infer<typeof findingSchema>;
export type Severity = z.infer<typeof severitySchema>;
export type WhatIfPoint = z.infer<typeof whatIfPointSchema>;
export type RunAnalysis = z.infer<typeof analysisSchema>;
export type ParseReport = z.infer<typeof parseReportSchema>;
export type ParseIssue = z.infer<typeof parseIssueSchema>;
export type ProfileOmissions = z.infer<typeof profileOmissionsSchema>;
export type TaskMetricTotals = z.infer<typeof taskMetricTotalsSchema>;
export type RunTotals = z.infer<typeof totalsSchema>;
export type EventLogSourceInfo = z.infer<typeof sourceSchema>;
