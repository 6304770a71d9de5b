import { median } from '@setpoint/foundation/statistics';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { Observation, RunProfileFeatures } from '../../optimizer/types.js';
import type { RecommenderRun } from './recommender-run.js';

/** What a past run tells the optimizer, whatever platform ran it. */

/**
 * No configuration finishes faster than this share of the based-on run's driver time plus critical path
 * (the longest chain of stages, each at its longest task): faster CPUs and Photon shorten tasks, not the chain.
 */
export const criticalPathFloorShare = 0.4;

export function runtimeFloorSeconds(profile: Pick<ModelProfile, 'analysis'>): number {
  return ((profile.analysis.driverTimeMs + profile.analysis.criticalPathMs) * criticalPathFloorShare) / 1000;
}

export function runtimeSecondsOf(profile: Pick<ModelProfile, 'application' | 'analysis'>): number {
  return (profile.application.durationMs ?? profile.analysis.wallTimeMs) / 1000;
}

export function inputBytesOf(run: RecommenderRun): number {
  return run.inputBytes ?? run.profile.totals.inputBytes;
}

const failedStatus = /FAIL|ERROR|TIMEDOUT|TIMED_OUT|CANCEL|INTERNAL/i;

export function runCompleted(run: RecommenderRun): boolean {
  if (run.status && failedStatus.test(run.status)) return false;
  if (run.profile.application.exitCode !== null && run.profile.application.exitCode !== 0) return false;
  return run.profile.totals.failedJobs === 0;
}

/**
 * Memory the run held at its peak, GiB: per stage, the mean peak execution memory of a task times the
 * tasks that ran at once, over the execution share of node memory (about half of it on Databricks).
 */
export function peakMemoryGibOf(profile: Pick<ModelProfile, 'executors' | 'stages'>): number {
  const slots = Math.max(1, profile.executors.maxConcurrent * profile.executors.coresPerExecutor);
  let peak = 0;
  for (const stage of profile.stages) {
    if (stage.tasks === 0) continue;
    const perTask = stage.peakExecutionMemoryBytes / stage.tasks;
    peak = Math.max(peak, perTask * Math.min(stage.numTasks, slots));
  }
  const executionShareOfNodeMemory = 0.5;
  return peak / executionShareOfNodeMemory / 2 ** 30;
}

export function profileFeatures(run: RecommenderRun): RunProfileFeatures {
  const { totals } = run.profile;
  return {
    totalExecutorTimeS: totals.executorRunTimeMs / 1000,
    spillBytes: totals.diskBytesSpilled,
    peakMemoryGib: peakMemoryGibOf(run.profile),
    inputBytes: inputBytesOf(run),
  };
}

/**
 * One run as the optimizer sees it; runtime and cost scaled to the latest input size (data grows). The
 * cost is the whole run's, like the optimizer's predictions (`overheadSeconds`): its part over the Spark
 * application scales with the input, the part billed outside it (`RunCost.overhead`) does not.
 */
export function observationOf(
  run: RecommenderRun,
  candidateId: string,
  latestInputBytes: number,
): Observation {
  const input = inputBytesOf(run);
  const scale = input > 0 && latestInputBytes > 0 ? latestInputBytes / input : 1;
  const completed = runCompleted(run);
  const overheadUsd = Math.min(run.cost.overhead?.usd ?? 0, run.cost.totalUsd);
  return {
    candidateId,
    runtimeS: runtimeSecondsOf(run.profile) * scale,
    costUsd: (run.cost.totalUsd - overheadUsd) * scale + overheadUsd,
    ...(overheadUsd > 0 ? { overheadUsd } : {}),
    completed,
    profile: profileFeatures(run),
  };
}

/**
 * The job's billed time outside its Spark application per run (a launched cluster's provisioning,
 * bootstrap and idle minutes): the median over its completed runs, 0 when the platform bills none. The
 * optimizer prices it at each candidate's rate, so predictions and observed costs compare like with like.
 */
export function overheadSecondsOf(runs: readonly RecommenderRun[]): number {
  const seconds = runs.filter(runCompleted).map((run) => run.cost.overhead?.seconds ?? 0);
  return median(seconds) ?? 0;
}
