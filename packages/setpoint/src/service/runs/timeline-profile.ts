import { parseReportWithoutLog, totalsWithoutLog } from '../../eventlog/profile-without-log.js';
import { type PlatformHints, type RunProfile, runProfileSchemaVersion } from '../../eventlog/run-profile.js';

/**
 * A run profile from a platform's timeline alone, for compute whose event log Setpoint does not read (compute
 * the platform sizes itself): the runtime from when the run started to when it ended, nothing else. What only
 * an event log knows (executors, stages, tasks, spill, bytes) stays empty; `source.path` names where the run
 * was read from and `parse.warnings` says why, so nothing mistakes it for a parsed log.
 */
export function timelineProfile(input: {
  /** Where the run was read, e.g. `emr-serverless://<application>/<job run>`. */
  source: string;
  platform: Pick<PlatformHints, 'kind' | 'cloud' | 'region' | 'clusterId' | 'runtimeVersion' | 'evidence'>;
  startMs: number;
  endMs: number;
  failed: boolean;
  name: string | null;
  warning: string;
}): RunProfile {
  const wallTimeMs = Math.max(0, input.endMs - input.startMs);
  return {
    schemaVersion: runProfileSchemaVersion,
    source: { path: input.source, layout: 'file', inProgress: false, parts: [] },
    application: {
      id: null,
      name: input.name,
      attemptId: null,
      sparkVersion: null,
      user: null,
      startTime: input.startMs,
      endTime: input.endMs,
      durationMs: wallTimeMs,
      observedSpanMs: wallTimeMs,
      exitCode: input.failed ? 1 : 0,
      sparkContextId: null,
    },
    platform: {
      master: null,
      workerNodeType: null,
      driverNodeType: null,
      workers: null,
      autoscale: null,
      photon: null,
      availability: null,
      databricksTags: {},
      ...input.platform,
    },
    sparkConf: {},
    executors: { totalAdded: 0, totalRemoved: 0, maxConcurrent: 0, coresPerExecutor: 0, timeline: [] },
    jobs: [],
    stages: [],
    sqlExecutions: [],
    totals: totalsWithoutLog(),
    analysis: {
      wallTimeMs,
      executorTimeMs: wallTimeMs,
      driverTimeMs: 0,
      criticalPathMs: 0,
      idealTimeMs: wallTimeMs,
      coresObserved: 0,
      coreHoursAvailable: 0,
      coreHoursUsed: 0,
      utilization: 0,
    },
    whatIf: [],
    findings: [],
    parse: parseReportWithoutLog(input.warning),
  };
}
