import type { AggregatedRun } from '../run-aggregator.js';
import type { ExecutorProfile, RunAnalysis, RunProfile, StageProfile, WhatIfPoint } from '../run-profile.js';
import { criticalPathOfGroups, type JobGroup, replayOnSlots } from './what-if.js';

const hourMs = 3_600_000;
export const defaultWhatIfFactors = [0.25, 0.5, 1, 2, 4] as const;

export interface ClusterShape {
  /** Executors running tasks at the busiest point (1 in local mode, where the driver runs tasks). */
  executors: number;
  coresPerExecutor: number;
  /** Executors that ran tasks: workers, or the driver in local mode. */
  taskExecutors: ExecutorProfile[];
}

/** The executors that run tasks and their usual core count; local-mode runs count the driver. */
export function clusterShape(run: AggregatedRun): ClusterShape {
  const workers = run.executors.filter((executor) => executor.id !== 'driver' && executor.cores > 0);
  const driver = run.executors.find((executor) => executor.id === 'driver');
  const taskExecutors = workers.length > 0 ? workers : driver && driver.cores > 0 ? [driver] : [];
  const coresPerExecutor = mostCommon(taskExecutors.map((executor) => executor.cores)) ?? estimateCores(run);
  const executors =
    workers.length > 0 ? Math.max(1, run.maxConcurrentExecutors - (driver?.cores ? 1 : 0)) : 1;
  return {
    executors: Math.max(1, Math.min(executors, workers.length || 1)),
    coresPerExecutor,
    taskExecutors,
  };
}

function mostCommon(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: number | undefined;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && value > best)) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/** Old logs name no executor cores: take the peak number of tasks running at once. */
function estimateCores(run: AggregatedRun): number {
  const points: number[] = [];
  for (const times of run.taskLaunchTimes.values()) {
    for (let index = 0; index + 1 < times.length; index += 2) {
      points.push(times[index]! * 2 + 1, times[index + 1]! * 2);
    }
  }
  points.sort((a, b) => a - b);
  let running = 0;
  let peak = 0;
  for (const point of points) {
    running += point % 2 === 1 ? 1 : -1;
    peak = Math.max(peak, running);
  }
  return Math.max(1, peak);
}

/**
 * Jobs whose [submission, completion] intervals overlap form one group; each stage that ran is
 * placed in the group of the first job that lists it, in stage-id (hence DAG) order.
 */
export function jobGroups(run: AggregatedRun): JobGroup[] {
  const lastTime = run.application.lastTimestamp ?? 0;
  const intervals = run.jobs
    .filter((job) => job.submissionTime !== null)
    .map((job) => ({ job, start: job.submissionTime!, end: job.completionTime ?? lastTime }))
    .sort((a, b) => a.start - b.start);
  const groupOfJob = new Map<number, number>();
  const groups: JobGroup[] = [];
  let groupEnd = Number.NEGATIVE_INFINITY;
  for (const { job, start, end } of intervals) {
    if (groups.length === 0 || start >= groupEnd) groups.push({ stages: [] });
    groupEnd = Math.max(groupEnd, end);
    groupOfJob.set(job.jobId, groups.length - 1);
  }
  const orphanStages: StageProfile[] = [];
  for (const stage of run.stages) {
    if (stage.tasks === 0) continue;
    const owner = stage.jobIds.map((jobId) => groupOfJob.get(jobId)).find((group) => group !== undefined);
    if (owner === undefined) orphanStages.push(stage);
    else groups[owner]!.stages.push(stage);
  }
  if (orphanStages.length > 0) groups.push({ stages: orphanStages });
  return groups;
}

function unionLength(intervals: Array<[number, number]>): number {
  const sorted = intervals.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let currentStart = Number.NaN;
  let currentEnd = Number.NaN;
  for (const [start, end] of sorted) {
    if (Number.isNaN(currentEnd) || start > currentEnd) {
      if (!Number.isNaN(currentEnd)) total += currentEnd - currentStart;
      currentStart = start;
      currentEnd = end;
    } else {
      currentEnd = Math.max(currentEnd, end);
    }
  }
  if (!Number.isNaN(currentEnd)) total += currentEnd - currentStart;
  return total;
}

export function totalTaskTimeMs(stages: StageProfile[]): number {
  let total = 0;
  for (const stage of stages) {
    for (const duration of stage.taskDurationsMs) total += duration;
    for (const duration of stage.unsuccessfulTaskDurationsMs) total += duration;
  }
  return total;
}

export function analyzeRun(run: AggregatedRun, shape: ClusterShape, groups: JobGroup[]): RunAnalysis {
  const { startTime, endTime, firstTimestamp, lastTimestamp } = run.application;
  const spanStart = startTime ?? firstTimestamp ?? 0;
  const spanEnd = endTime ?? lastTimestamp ?? spanStart;
  const wallTimeMs = Math.max(0, spanEnd - spanStart);
  const jobIntervals: Array<[number, number]> = run.jobs
    .filter((job) => job.submissionTime !== null)
    .map((job) => [
      Math.max(spanStart, job.submissionTime!),
      Math.min(spanEnd, job.completionTime ?? lastTimestamp ?? spanEnd),
    ]);
  const executorTimeMs = Math.min(wallTimeMs, unionLength(jobIntervals));
  const driverTimeMs = Math.max(0, wallTimeMs - executorTimeMs);
  const coresObserved = shape.executors * shape.coresPerExecutor;
  const taskTimeMs = totalTaskTimeMs(run.stages);
  const executorCoreMs = shape.taskExecutors.reduce((sum, executor) => {
    const added = Math.max(spanStart, executor.addedTime ?? spanStart);
    const removed = Math.min(spanEnd, executor.removedTime ?? spanEnd);
    return sum + executor.cores * Math.max(0, removed - added);
  }, 0);
  const coreMsAvailable = executorCoreMs > 0 ? executorCoreMs : coresObserved * wallTimeMs;
  return {
    wallTimeMs,
    executorTimeMs,
    driverTimeMs,
    criticalPathMs: driverTimeMs + criticalPathOfGroups(groups),
    idealTimeMs: driverTimeMs + (coresObserved > 0 ? taskTimeMs / coresObserved : 0),
    coresObserved,
    coreHoursAvailable: coreMsAvailable / hourMs,
    coreHoursUsed: taskTimeMs / hourMs,
    utilization: coreMsAvailable > 0 ? Math.min(1, taskTimeMs / coreMsAvailable) : 0,
  };
}

/**
 * Core time on CPU: the executors' CPU time ÷ the core time they held, 0..1 (null when the log names no
 * executor cores). Lower than the core time in tasks (`RunAnalysis.utilization`) by the time tasks held
 * their cores without computing (waiting on storage or the network, for instance).
 */
export function coreTimeOnCpu(profile: {
  totals: Pick<RunProfile['totals'], 'executorCpuTimeMs'>;
  analysis: Pick<RunAnalysis, 'coreHoursAvailable'>;
}): number | null {
  const coreMs = profile.analysis.coreHoursAvailable * hourMs;
  return coreMs > 0 ? Math.min(1, profile.totals.executorCpuTimeMs / coreMs) : null;
}

/** Estimated wall time at other executor counts: replayed task time plus the (constant) driver time. */
export function whatIf(
  shape: ClusterShape,
  groups: JobGroup[],
  analysis: RunAnalysis,
  taskTimeMs: number,
  extraExecutorCounts: readonly number[] = [],
): WhatIfPoint[] {
  const counts = new Set<number>();
  for (const factor of defaultWhatIfFactors) counts.add(Math.max(1, Math.round(shape.executors * factor)));
  for (const count of extraExecutorCounts) if (Number.isInteger(count) && count > 0) counts.add(count);
  return [...counts]
    .sort((a, b) => a - b)
    .map((executors) => {
      const slots = executors * shape.coresPerExecutor;
      const replayed = replayOnSlots(groups, slots);
      const estimatedDurationMs = analysis.driverTimeMs + replayed;
      return {
        executors,
        estimatedDurationMs,
        estimatedUtilization: replayed > 0 ? Math.min(1, taskTimeMs / (replayed * slots)) : 0,
        observed: executors === shape.executors,
      };
    });
}
