import { countOf } from '@setpoint/foundation/words';
import { describeParseIssue } from './parse-issues.js';
import type {
  ExecutorProfile,
  Finding,
  JobProfile,
  ParseIssue,
  ProfileOmissions,
  RunProfile,
  SqlExecutionProfile,
  StageProfile,
} from './run-profile.js';

/**
 * How much of a run one RunProfile keeps. A log may hold any number of stages, jobs, SQL executions,
 * executors and tasks; the profile keeps the ones below and summarizes the rest (counted in
 * `parse.omitted`; `totals`, `analysis`, `whatIf` and `findings` are computed from everything before
 * the cut). With these defaults a stored profile stays under `maxStoredProfileBytes` whatever a log holds
 * (docs/eventlog.md, "Limits"). They are applied after the whole log is aggregated, whichever way its
 * lines were read.
 */
export interface ProfileCaps {
  /** Stage attempts kept: failed ones first, then those with the most executor run time. */
  maxProfileStages: number;
  /** Jobs kept: failed ones first, then the longest. */
  maxProfileJobs: number;
  /** SQL executions kept: failed ones first, then the longest. */
  maxProfileSqlExecutions: number;
  /** Executors kept: the earliest added (the cluster's start stays exact). */
  maxProfileExecutors: number;
  /** Task durations kept per stage (successful and unsuccessful each): evenly spaced order statistics. */
  maxTaskDurationsPerStage: number;
  /** Ids kept in one list (a stage's parents and jobs, a job's stages, a finding's stages). */
  maxIdsPerList: number;
  /** Characters kept of a short text: a stage name, an executor's host and why it was removed. */
  maxNameChars: number;
  /** Characters kept of a long text: a SQL description (often the whole query), an error, a failure reason. */
  maxDescriptionChars: number;
  /** Files of the log listed in `source.parts` (a zip may hold thousands). */
  maxListedParts: number;
  /** Reader warnings listed in `parse.warnings`. */
  maxWarnings: number;
}

export const defaultProfileCaps: ProfileCaps = {
  maxProfileStages: 400,
  maxProfileJobs: 500,
  maxProfileSqlExecutions: 100,
  maxProfileExecutors: 500,
  maxTaskDurationsPerStage: 32,
  maxIdsPerList: 32,
  maxNameChars: 256,
  maxDescriptionChars: 1024,
  maxListedParts: 100,
  maxWarnings: 20,
};

/** What a profile within the default caps weighs at most as stored JSON (tested in profile-caps.test.ts). */
export const maxStoredProfileBytes = 4 * 2 ** 20;

export function noOmissions(): ProfileOmissions {
  return {
    stages: 0,
    stageTaskTimeMs: 0,
    jobs: 0,
    sqlExecutions: 0,
    executors: 0,
    taskDurations: 0,
    parts: 0,
    warnings: 0,
  };
}

const cutMarker = '…(truncated)';

/** `text` cut to `chars`; counted unless the reader had cut it already (one text, one count). */
function cut(text: string, chars: number, counter: { texts: number }): string {
  if (text.length <= chars) return text;
  if (!text.endsWith(cutMarker)) counter.texts += 1;
  return `${text.slice(0, chars)}${cutMarker}`;
}

/** The first `max` of `items` by `rank` (lower ranks first), returned in their original order. */
export function keepBest<T>(items: readonly T[], max: number, rank: (a: T, b: T) => number): T[] {
  if (items.length <= max) return [...items];
  const kept = new Set([...items].sort(rank).slice(0, max));
  return items.filter((item) => kept.has(item));
}

/** `max` evenly spaced order statistics of `values` (min and max included). */
export function sampleDurations(values: readonly number[], max: number): number[] {
  if (values.length <= max) return [...values];
  const sorted = [...values].sort((a, b) => a - b);
  if (max <= 1) return [sorted[sorted.length - 1] as number];
  return Array.from(
    { length: max },
    (_, index) => sorted[Math.round((index * (sorted.length - 1)) / (max - 1))] as number,
  );
}

const failedFirst = (a: boolean, b: boolean) => Number(b) - Number(a);

/** The order in which stages are kept: failed attempts first, then the most executor run time. */
export function stageWeightOrder(a: StageWeight, b: StageWeight): number {
  return (
    failedFirst(a.status === 'FAILED', b.status === 'FAILED') ||
    b.executorRunTimeMs - a.executorRunTimeMs ||
    a.stageId - b.stageId ||
    a.attemptId - b.attemptId
  );
}

type StageWeight = Pick<StageProfile, 'status' | 'executorRunTimeMs' | 'stageId' | 'attemptId'>;
const spanOf = (start: number | null, end: number | null) =>
  start !== null && end !== null ? Math.max(0, end - start) : 0;

/**
 * The profile within `caps`: what is cut is counted in `parse.omitted` and named by a `profile-capped`
 * issue. A profile already within them comes back unchanged (apart from a new object).
 */
export function capRunProfile(profile: RunProfile, caps: ProfileCaps = defaultProfileCaps): RunProfile {
  const omitted = { ...noOmissions(), ...profile.parse.omitted };
  const texts = { texts: 0 };
  const ids = (list: number[]) =>
    list.length <= caps.maxIdsPerList ? list : list.slice(0, caps.maxIdsPerList);

  const stages = keepBest(profile.stages, caps.maxProfileStages, stageWeightOrder);
  omitted.stages += profile.stages.length - stages.length;
  if (stages.length < profile.stages.length) {
    const kept = new Set(stages);
    for (const stage of profile.stages)
      if (!kept.has(stage)) omitted.stageTaskTimeMs += stage.executorRunTimeMs;
  }
  const cappedStages = stages.map((stage): StageProfile => {
    const taskDurationsMs = sampleDurations(stage.taskDurationsMs, caps.maxTaskDurationsPerStage);
    const unsuccessfulTaskDurationsMs = sampleDurations(
      stage.unsuccessfulTaskDurationsMs,
      caps.maxTaskDurationsPerStage,
    );
    omitted.taskDurations +=
      stage.taskDurationsMs.length -
      taskDurationsMs.length +
      stage.unsuccessfulTaskDurationsMs.length -
      unsuccessfulTaskDurationsMs.length;
    return {
      ...stage,
      name: cut(stage.name, caps.maxNameChars, texts),
      failureReason:
        stage.failureReason === null ? null : cut(stage.failureReason, caps.maxDescriptionChars, texts),
      parentIds: ids(stage.parentIds),
      jobIds: ids(stage.jobIds),
      taskDurationsMs,
      unsuccessfulTaskDurationsMs,
    };
  });

  const jobs = keepBest(
    profile.jobs,
    caps.maxProfileJobs,
    (a, b) =>
      failedFirst(a.status === 'FAILED', b.status === 'FAILED') ||
      spanOf(b.submissionTime, b.completionTime) - spanOf(a.submissionTime, a.completionTime) ||
      a.jobId - b.jobId,
  ).map((job): JobProfile => ({ ...job, stageIds: ids(job.stageIds) }));
  omitted.jobs += profile.jobs.length - jobs.length;

  const sqlExecutions = keepBest(
    profile.sqlExecutions,
    caps.maxProfileSqlExecutions,
    (a, b) =>
      failedFirst(a.errorMessage !== null, b.errorMessage !== null) ||
      (b.durationMs ?? 0) - (a.durationMs ?? 0) ||
      a.executionId - b.executionId,
  ).map(
    (execution): SqlExecutionProfile => ({
      ...execution,
      description: cut(execution.description, caps.maxDescriptionChars, texts),
      errorMessage:
        execution.errorMessage === null ? null : cut(execution.errorMessage, caps.maxDescriptionChars, texts),
      jobIds: ids(execution.jobIds),
    }),
  );
  omitted.sqlExecutions += profile.sqlExecutions.length - sqlExecutions.length;

  const timeline = keepBest(
    profile.executors.timeline,
    caps.maxProfileExecutors,
    (a, b) => (a.addedTime ?? Number.POSITIVE_INFINITY) - (b.addedTime ?? Number.POSITIVE_INFINITY),
  ).map(
    (executor): ExecutorProfile => ({
      ...executor,
      host: executor.host === null ? null : cut(executor.host, caps.maxNameChars, texts),
      removedReason:
        executor.removedReason === null ? null : cut(executor.removedReason, caps.maxNameChars, texts),
    }),
  );
  omitted.executors += profile.executors.timeline.length - timeline.length;

  const parts = profile.source.parts.slice(0, caps.maxListedParts);
  omitted.parts += profile.source.parts.length - parts.length;
  const warnings = profile.parse.warnings.slice(0, caps.maxWarnings);
  omitted.warnings += profile.parse.warnings.length - warnings.length;

  const findings = profile.findings.map(
    (finding): Finding => (finding.stageIds ? { ...finding, stageIds: ids(finding.stageIds) } : finding),
  );

  const issues = [...profile.parse.issues];
  if (leftOut(omitted) > leftOut(profile.parse.omitted ?? noOmissions()))
    upsertIssue(issues, cappedIssue(omitted, caps));
  if (texts.texts > 0) {
    const truncated = issues.find((issue) => issue.code === 'text-truncated');
    const count = (truncated?.count ?? 0) + texts.texts;
    upsertIssue(issues, {
      code: 'text-truncated',
      count,
      message: describeParseIssue('text-truncated', count, []),
    });
  }
  return {
    ...profile,
    source: { ...profile.source, parts },
    executors: { ...profile.executors, timeline },
    jobs,
    stages: cappedStages,
    sqlExecutions,
    findings,
    parse: { ...profile.parse, warnings, issues, omitted },
  };
}

/** Stages, jobs, SQL executions and executors left out (a sample of task durations leaves nothing out). */
function leftOut(omitted: ProfileOmissions): number {
  return omitted.stages + omitted.jobs + omitted.sqlExecutions + omitted.executors;
}

function upsertIssue(issues: ParseIssue[], issue: ParseIssue): void {
  const at = issues.findIndex((existing) => existing.code === issue.code);
  if (at === -1) issues.push(issue);
  else issues[at] = issue;
}

function cappedIssue(omitted: ProfileOmissions, caps: ProfileCaps): ParseIssue {
  const parts: string[] = [];
  if (omitted.stages > 0)
    parts.push(
      `${countOf(omitted.stages, 'stage attempt')} beyond the ${caps.maxProfileStages} with the most task time (${Math.round(omitted.stageTaskTimeMs)} ms of task time)`,
    );
  if (omitted.jobs > 0) parts.push(`${countOf(omitted.jobs, 'job')} beyond ${caps.maxProfileJobs}`);
  if (omitted.sqlExecutions > 0)
    parts.push(`${countOf(omitted.sqlExecutions, 'SQL execution')} beyond ${caps.maxProfileSqlExecutions}`);
  if (omitted.executors > 0)
    parts.push(`${countOf(omitted.executors, 'executor')} beyond ${caps.maxProfileExecutors}`);
  if (omitted.taskDurations > 0)
    parts.push(
      `${countOf(omitted.taskDurations, 'task duration')} beyond ${caps.maxTaskDurationsPerStage} per stage (a sample is kept)`,
    );
  const count = leftOut(omitted);
  return { code: 'profile-capped', count, message: describeParseIssue('profile-capped', count, parts) };
}
