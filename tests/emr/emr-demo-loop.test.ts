import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Three rounds of eleven Databricks projects and three EMR workloads; slow on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 180_000 });

describe("the demo's EMR account in the closed loop", () => {
  let loop: ClosedLoop;

  beforeAll(async () => {
    loop = await startClosedLoop({
      port: 0,
      dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-emr-demo-')),
      seed: 1,
      emr: true,
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
  });

  afterAll(async () => {
    await loop?.close();
  });

  it('imports three EMR workloads whose later launches take their project’s recommendation', async () => {
    for (let round = 0; round < 3; round += 1) await loop.round();
    const { services } = loop.server;
    const [account, ...others] = await emrIntegrationOf(services).accounts.list();
    expect(others).toEqual([]);
    const emrJobs = loop.jobs.filter((job) => job.jobId.startsWith('emr:'));
    expect(emrJobs.map((job) => job.name).sort()).toEqual([
      'clickstream-sessions',
      'ledger-sort',
      'orders-nightly',
    ]);
    for (const job of emrJobs) {
      const [projectId] = job.projectIds;
      if (!projectId) throw new Error(`${job.name} has no project`);
      expect((await services.projects.get(projectId)).workspaceId).toBe(account?.id);
      // the imported run and one per round, each collected from the step and costed
      const runs = await loop.runsOf(projectId);
      expect(runs).toHaveLength(4);
      for (const run of runs) {
        expect(run).toMatchObject({ pipelineState: 'DONE', status: 'SUCCESS' });
        expect(run.runId).toMatch(/^j-[A-Z0-9]+:s-[A-Z0-9]+$/);
        expect(run.costUsd).toBeGreaterThan(0);
      }
      // the newest launch merged a recommendation of this project into RunJobFlow (the tag names it)
      const newest = runs.at(-1);
      expect(newest?.recommendationId).toBeTruthy();
      const recommendation = await services.recommendations.get(projectId, newest?.recommendationId ?? '');
      expect(recommendation.state).toBe('SUCCESS');
    }
  });
});
