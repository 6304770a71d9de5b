import { findFindings } from './analysis/findings.js';
import { detectPlatform } from './analysis/platform-hints.js';
import { analyzeRun, clusterShape, jobGroups, totalTaskTimeMs, whatIf } from './analysis/run-analysis.js';
import { resolveLimits } from './eventlog-limits.js';
import { capRunProfile, type ProfileCaps } from './profile-caps.js';
import { type AggregatedRun, emptyMetricTotals } from './run-aggregator.js';
import {
  type EventLogSourceInfo,
  type RunProfile,
  type RunTotals,
  runProfileSchemaVersion,
} from './run-profile.js';

export interface ProfileOptions {
  /** Extra executor counts for the what-if table, beside 0.25×…4× of the observed count. */
  whatIfExecutors?: readonly number[];
  /** What the profile keeps of the run's lists (unset ones take `defaultProfileCaps`). */
  limits?: Partial<ProfileCaps>;
}

export function buildRunProfile(
  run: AggregatedRun,
  source: EventLogSourceInfo,
  options: ProfileOptions = {},
): RunProfile {
  const { application } = run;
  const totals = runTotals(run);
  const shape = clusterShape(run);
  const groups = jobGroups(run);
  const analysis = analyzeRun(run, shape, groups);
  const spanStart = application.startTime ?? application.firstTimestamp;
  const spanEnd = application.endTime ?? application.lastTimestamp;
  const profile: RunProfile = {
    schemaVersion: runProfileSchemaVersion,
    source,
    application: {
      id: application.id,
      name: application.name,
      attemptId: application.attemptId,
      sparkVersion: application.sparkVersion,
      user: application.user,
      startTime: application.startTime,
      endTime: application.endTime,
      durationMs:
        application.startTime !== null && application.endTime !== null
          ? Math.max(0, application.endTime - application.startTime)
          : null,
      observedSpanMs: spanStart !== null && spanEnd !== null ? Math.max(0, spanEnd - spanStart) : null,
      exitCode: application.exitCode,
      sparkContextId: application.sparkContextId,
    },
    platform: detectPlatform({
      sparkConf: run.sparkConf,
      sparkVersion: application.sparkVersion,
      hosts: run.hosts,
    }),
    sparkConf: run.sparkConf,
    executors: {
      totalAdded: run.executorsAdded,
      totalRemoved: run.executorsRemoved,
      maxConcurrent: run.maxConcurrentExecutors,
      coresPerExecutor: shape.coresPerExecutor,
      timeline: run.executors,
    },
    jobs: run.jobs,
    stages: run.stages,
    sqlExecutions: run.sqlExecutions,
    totals,
    analysis,
    whatIf: whatIf(shape, groups, analysis, totalTaskTimeMs(run.stages), options.whatIfExecutors),
    findings: findFindings({ stages: run.stages, totals, analysis }),
    parse: run.parse,
  };
  // totals, analysis, what-if and findings above read every stage; the stored lists are bounded
  return capRunProfile(profile, resolveLimits(options.limits));
}

function runTotals(run: AggregatedRun): RunTotals {
  const sums = emptyMetricTotals();
  const keys = Object.keys(sums) as Array<keyof typeof sums>;
  for (const stage of run.stages) {
    for (const key of keys) {
      if (key === 'peakExecutionMemoryBytes') sums[key] = Math.max(sums[key], stage[key]);
      else sums[key] += stage[key];
    }
  }
  return {
    ...sums,
    jobs: run.jobs.length,
    failedJobs: run.jobs.filter((job) => job.status === 'FAILED').length,
    stages: run.stages.filter((stage) => stage.status === 'COMPLETE').length,
    failedStages: run.stages.filter((stage) => stage.status === 'FAILED').length,
    sqlExecutions: run.sqlExecutions.length,
  };
}
