import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Three rounds of eleven Databricks projects and three EMR workloads, twice; slow on a busy machine.
vi.setConfig({ testTimeout: 900_000, hookTimeout: 180_000 });

const rounds = 3;

const startLoop = () =>
  startClosedLoop({
    port: 0,
    dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-emr-demo-')),
    seed: 1,
    emr: true,
    env: { SETPOINT_LOG_LEVEL: 'silent' },
  });

/** Every project's runs as the platform and the bill saw them (ids Setpoint makes up are left out). */
async function runsByProject(loop: ClosedLoop) {
  const projects = [];
  for (const job of loop.jobs)
    for (const projectId of job.projectIds)
      projects.push({
        job: job.name,
        runs: (await loop.runsOf(projectId)).map((run) => ({
          runId: run.runId,
          status: run.status,
          runtimeMinutes: run.runtimeMinutes,
          costUsd: run.costUsd,
          learning: run.learning,
        })),
      });
  return projects;
}

describe("the demo's EMR account in the closed loop", () => {
  let loop: ClosedLoop;

  beforeAll(async () => {
    loop = await startLoop();
  });

  afterAll(async () => {
    await loop?.close();
  });

  it('imports three EMR workloads whose later launches take their project’s recommendation', async () => {
    for (let round = 0; round < rounds; round += 1) await loop.round();
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

  it('runs the same for the same seed however long the machine takes: the rounds drive the clock', async () => {
    const first = await runsByProject(loop);
    // the same loop again, started later and digested at its own pace beside the first one's server
    const again = await startLoop();
    try {
      for (let round = 0; round < rounds; round += 1) await again.round();
      const second = await runsByProject(again);
      expect(second.map((project) => project.job)).toEqual(first.map((project) => project.job));
      expect(first.filter((project) => project.job === 'ledger-sort')[0]?.runs).toHaveLength(rounds + 1);
      for (const [index, project] of second.entries())
        expect(project.runs, project.job).toEqual(first[index]?.runs);
    } finally {
      await again.close();
    }
  });
});
