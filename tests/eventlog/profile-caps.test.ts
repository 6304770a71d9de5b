/**
 * What one run's profile may hold. A log of tens of thousands of stages and SQL executions with
 * kilobytes of text each compresses ~100×, passes every byte limit, and once became a 180 MB stored
 * profile; the caps keep the lists bounded while the totals still count everything.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeEventLog } from 'setpoint/eventlog/index';
import { modelProfileOf } from 'setpoint/eventlog/model-profile';
import {
  capRunProfile,
  defaultProfileCaps,
  maxStoredProfileBytes,
  sampleDurations,
} from 'setpoint/eventlog/profile-caps';
import type { RunProfile, StageProfile } from 'setpoint/eventlog/run-profile';
import { describe, expect, it } from 'vitest';
import { manyStageEventLog } from '../support/many-stage-eventlog.js';

const text = (chars: number, seed: number) => `${seed} ${'x'.repeat(chars)}`;

/** A profile as large as any log could make it before the caps: every list long, every text at the reader's limits. */
function hugeProfile(base: RunProfile): RunProfile {
  // each list past its cap: 1,000 entries of every kind, 100 ids per list, 1,000 tasks per stage
  const ids = Array.from({ length: 1_000 }, (_, i) => i);
  const idList = ids.slice(0, 100);
  const stage = (stageId: number): StageProfile => ({
    ...(base.stages[0] as StageProfile),
    stageId,
    name: text(4_096, stageId),
    parentIds: idList,
    jobIds: idList,
    status: stageId % 7 === 0 ? 'FAILED' : 'COMPLETE',
    failureReason: stageId % 7 === 0 ? text(4_096, stageId) : null,
    executorRunTimeMs: stageId * 1_000.123,
    taskDurationsMs: Array.from({ length: 1_000 }, (_, i) => i * 1.001 + 1e9),
    unsuccessfulTaskDurationsMs: Array.from({ length: 1_000 }, (_, i) => i * 1.001 + 1e9),
  });
  return {
    ...base,
    source: {
      ...base.source,
      parts: ids.map((i) => ({ name: text(200, i), codec: 'zstd', storedBytes: 1e9 })),
    },
    sparkConf: Object.fromEntries(ids.slice(0, 256).map((i) => [text(250, i), text(2_060, i)])),
    platform: {
      ...base.platform,
      databricksTags: Object.fromEntries(ids.slice(0, 256).map((i) => [text(250, i), text(2_060, i)])),
    },
    executors: {
      ...base.executors,
      timeline: ids.map((i) => ({
        ...(base.executors.timeline[0] as RunProfile['executors']['timeline'][number]),
        id: String(i),
        host: text(4_096, i),
        addedTime: 1e12 + i,
        removedReason: text(4_096, i),
      })),
    },
    jobs: ids.map((jobId) => ({
      jobId,
      submissionTime: 1e12,
      completionTime: 1e12 + jobId,
      status: 'FAILED',
      stageIds: idList,
      sqlExecutionId: jobId,
      tasks: 1,
      failedTasks: 1,
      killedTasks: 0,
    })),
    stages: ids.map(stage),
    sqlExecutions: ids.map((executionId) => ({
      executionId,
      description: text(4_096, executionId),
      startTime: 1e12,
      endTime: 1e12 + executionId,
      durationMs: executionId,
      jobIds: idList,
      errorMessage: text(4_096, executionId),
    })),
    findings: [{ id: 'skew', severity: 'low', message: text(500, 0), stageIds: idList }],
    parse: { ...base.parse, warnings: ids.map((i) => text(300, i)) },
  };
}

async function profileOfLog(log: Buffer): Promise<RunProfile> {
  const path = join(mkdtempSync(join(tmpdir(), 'setpoint-caps-')), 'eventlog');
  writeFileSync(path, log);
  return analyzeEventLog(path);
}

describe('profile caps', () => {
  it('a log of 1,500 stages and 400 SQL executions with 4 KB texts: bounded lists, totals of everything', async () => {
    const profile = await profileOfLog(
      manyStageEventLog({ stages: 1_500, sqlExecutions: 400, textChars: 4_096 }),
    );
    expect(JSON.stringify(profile).length).toBeLessThanOrEqual(maxStoredProfileBytes);
    expect(profile.stages).toHaveLength(defaultProfileCaps.maxProfileStages);
    expect(profile.jobs).toHaveLength(defaultProfileCaps.maxProfileJobs);
    expect(profile.sqlExecutions).toHaveLength(defaultProfileCaps.maxProfileSqlExecutions);
    for (const stage of profile.stages)
      expect(stage.name.length).toBeLessThanOrEqual(defaultProfileCaps.maxNameChars + 20);
    // the totals and the analysis count every stage and query
    expect(profile.totals.stages).toBe(1_500);
    expect(profile.totals.jobs).toBe(1_500);
    expect(profile.totals.tasks).toBe(1_500);
    expect(profile.totals.sqlExecutions).toBe(400);
    expect(profile.parse.omitted).toMatchObject({ stages: 1_100, jobs: 1_000, sqlExecutions: 300 });
    expect(profile.parse.issues).toContainEqual(
      expect.objectContaining({ code: 'profile-capped', count: 1_100 + 1_000 + 300 }),
    );
    // what the model reads of it is a few kilobytes per stage kept, and counts them all
    const model = modelProfileOf(profile);
    expect(model.stageCount).toBe(1_500);
    expect(JSON.stringify(model).length).toBeLessThan(128 * 1024);
  });

  it('no profile, however large, is stored beyond maxStoredProfileBytes', async () => {
    const base = await profileOfLog(manyStageEventLog({ stages: 2, sqlExecutions: 1, textChars: 10 }));
    const huge = hugeProfile(base);
    expect(JSON.stringify(huge).length).toBeGreaterThan(10 * maxStoredProfileBytes);
    const capped = capRunProfile(huge);
    expect(JSON.stringify(capped).length).toBeLessThanOrEqual(maxStoredProfileBytes);
    // failed stages are kept first, then the most task time
    expect(capped.stages.filter((stage) => stage.status === 'FAILED')).toHaveLength(143);
    expect(capped.stages.at(-1)?.stageId).toBe(999);
    expect(capped.executors.timeline[0]?.addedTime).toBe(1e12);
    expect(capped.parse.omitted).toMatchObject({ stages: 600, executors: 500, parts: 900, warnings: 980 });
    // capping again changes nothing
    expect(capRunProfile(capped)).toEqual(capped);
  });

  it('a profile within the caps is stored as it is', async () => {
    const profile = await profileOfLog(manyStageEventLog({ stages: 20, sqlExecutions: 5, textChars: 100 }));
    expect(profile.stages).toHaveLength(20);
    expect(profile.parse.issues.map((issue) => issue.code)).not.toContain('profile-capped');
    expect(capRunProfile(profile)).toEqual(profile);
  });

  it('keeps evenly spaced task durations, the shortest and the longest included', () => {
    const durations = Array.from({ length: 1_001 }, (_, i) => 1_000 - i);
    const sample = sampleDurations(durations, 11);
    expect(sample).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000]);
    expect(sampleDurations([3, 1, 2], 11)).toEqual([3, 1, 2]);
  });
});
