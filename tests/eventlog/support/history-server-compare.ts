/** Field-by-field comparison of a RunProfile with Spark History Server REST answers. */

import type { RunProfile } from 'setpoint/eventlog/index';
import { isKeptSparkConfKey } from 'setpoint/eventlog/spark-conf-policy';
import { expect } from 'vitest';

export type Json = Record<string, unknown>;

/** The History Server prints dates as 2015-02-03T16:43:05.829GMT. */
export function epoch(value: unknown): number | null {
  return typeof value === 'string' ? Date.parse(value.replace('GMT', 'Z')) : null;
}

export function compareJobs(profile: RunProfile, jobs: Json[]): void {
  expect(profile.jobs.map((job) => job.jobId).sort()).toEqual(jobs.map((job) => job.jobId).sort());
  for (const expected of jobs) {
    const job = profile.jobs.find((candidate) => candidate.jobId === expected.jobId)!;
    expect(job.status, `job ${job.jobId} status`).toBe(expected.status);
    expect(job.stageIds).toEqual(expected.stageIds);
    expect(job.failedTasks, `job ${job.jobId} failed tasks`).toBe(expected.numFailedTasks);
    expect(job.killedTasks).toBe(expected.numKilledTasks);
    expect(job.tasks - job.failedTasks - job.killedTasks, `job ${job.jobId} completed tasks`).toBe(
      expected.numCompletedTasks,
    );
    if (expected.submissionTime !== undefined)
      expect(job.submissionTime).toBe(epoch(expected.submissionTime));
    if (expected.completionTime !== undefined)
      expect(job.completionTime).toBe(epoch(expected.completionTime));
  }
}

/** RunProfile stage field → History Server StageData field (ns for CPU and shuffle write time). */
const stageFields: Array<[keyof RunProfile['stages'][number], string, number]> = [
  ['numTasks', 'numTasks', 1],
  ['failedTasks', 'numFailedTasks', 1],
  ['killedTasks', 'numKilledTasks', 1],
  ['executorRunTimeMs', 'executorRunTime', 1],
  ['executorCpuTimeMs', 'executorCpuTime', 1e6],
  ['executorDeserializeTimeMs', 'executorDeserializeTime', 1],
  ['jvmGcTimeMs', 'jvmGcTime', 1],
  ['resultSerializationTimeMs', 'resultSerializationTime', 1],
  ['resultSizeBytes', 'resultSize', 1],
  ['inputBytes', 'inputBytes', 1],
  ['inputRecords', 'inputRecords', 1],
  ['outputBytes', 'outputBytes', 1],
  ['outputRecords', 'outputRecords', 1],
  ['shuffleReadBytes', 'shuffleReadBytes', 1],
  ['shuffleRemoteBytesRead', 'shuffleRemoteBytesRead', 1],
  ['shuffleLocalBytesRead', 'shuffleLocalBytesRead', 1],
  ['shuffleReadRecords', 'shuffleReadRecords', 1],
  ['shuffleFetchWaitTimeMs', 'shuffleFetchWaitTime', 1],
  ['shuffleWriteBytes', 'shuffleWriteBytes', 1],
  ['shuffleWriteRecords', 'shuffleWriteRecords', 1],
  ['shuffleWriteTimeMs', 'shuffleWriteTime', 1e6],
  ['memoryBytesSpilled', 'memoryBytesSpilled', 1],
  ['diskBytesSpilled', 'diskBytesSpilled', 1],
];

export function compareStages(profile: RunProfile, stages: Json[]): void {
  for (const expected of stages) {
    const label = `stage ${expected.stageId}.${expected.attemptId}`;
    const stage = profile.stages.find(
      (candidate) => candidate.stageId === expected.stageId && candidate.attemptId === expected.attemptId,
    );
    expect(stage, label).toBeDefined();
    if (!stage) continue;
    expect(stage.status, `${label} status`).toBe(expected.status);
    expect(stage.name, `${label} name`).toBe(expected.name);
    expect(stage.tasks - stage.failedTasks - stage.killedTasks, `${label} completed tasks`).toBe(
      expected.numCompleteTasks,
    );
    for (const [ours, theirs, scale] of stageFields) {
      if (expected[theirs] === undefined) continue;
      expect(Math.round((stage[ours] as number) * scale), `${label} ${theirs}`).toBe(expected[theirs]);
    }
    expect(stage.submissionTime, `${label} submissionTime`).toBe(epoch(expected.submissionTime));
    expect(stage.completionTime, `${label} completionTime`).toBe(epoch(expected.completionTime));
    expect(stage.firstTaskLaunchedTime, `${label} firstTaskLaunchedTime`).toBe(
      epoch(expected.firstTaskLaunchedTime),
    );
  }
}

export function compareExecutors(profile: RunProfile, executors: Json[]): void {
  for (const expected of executors) {
    const label = `executor ${expected.id}`;
    const executor = profile.executors.timeline.find((candidate) => candidate.id === expected.id);
    expect(executor, label).toBeDefined();
    if (!executor) continue;
    expect(executor.tasks, `${label} totalTasks`).toBe(expected.totalTasks);
    expect(executor.failedTasks, `${label} failedTasks`).toBe(expected.failedTasks);
    // The History Server's driver totalDuration also counts time that no task end accounts for.
    if (expected.id !== 'driver')
      expect(executor.taskTimeMs, `${label} totalDuration`).toBe(expected.totalDuration);
    if (expected.id === 'driver') {
      // For the driver the History Server reports the application's duration as totalDuration and
      // the whole driver JVM's GC time; RunProfile counts GC during tasks only.
      expect(profile.application.durationMs, `${label} totalDuration`).toBe(expected.totalDuration);
    } else {
      expect(executor.taskTimeMs, `${label} totalDuration`).toBe(expected.totalDuration);
      expect(executor.jvmGcTimeMs, `${label} totalGCTime`).toBe(expected.totalGCTime);
    }
    expect(executor.inputBytes, `${label} totalInputBytes`).toBe(expected.totalInputBytes);
    expect(executor.shuffleReadBytes, `${label} totalShuffleRead`).toBe(expected.totalShuffleRead);
    expect(executor.shuffleWriteBytes, `${label} totalShuffleWrite`).toBe(expected.totalShuffleWrite);
    expect(executor.cores, `${label} totalCores`).toBe(expected.totalCores);
    expect(executor.host, `${label} host`).toBe(String(expected.hostPort).replace(/:\d+$/, ''));
    expect(executor.addedTime, `${label} addTime`).toBe(epoch(expected.addTime));
    expect(executor.removedTime, `${label} removeTime`).toBe(epoch(expected.removeTime));
  }
}

/**
 * The History Server's Spark properties as a RunProfile keeps them: the allow-listed keys only
 * (its own redaction already hides the secret-looking ones with the same marker).
 */
export function keptProperties(properties: Array<[string, string]>): Record<string, string> {
  return Object.fromEntries(properties.filter(([key]) => isKeptSparkConfKey(key)));
}
