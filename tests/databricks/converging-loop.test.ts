import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { overallSummary, summarizeProject } from 'setpoint/demo/loop-summary';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { runsUntilLearned } from 'setpoint/service/recommender/learning';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Nine rounds of ten jobs through webhooks, collection, parsing and apply; slow on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

// the cold start and the default learning phase at its longest: the recommendation after the last
// round is past learning
const rounds = runsUntilLearned;

describe('the whole closed loop, every emulator job, from import to optimizing', () => {
  let loop: ClosedLoop;

  beforeAll(async () => {
    loop = await startClosedLoop({
      port: 0,
      dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-loop-')),
      seed: 3,
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
  });

  afterAll(async () => {
    await loop?.close();
  });

  it('converges: every project leaves learning, saves money and keeps its SLA', async () => {
    for (let round = 0; round < rounds; round += 1) await loop.round();
    const { services } = loop.server;
    const summaries = [];
    for (const job of loop.jobs) {
      for (const projectId of job.projectIds) {
        const project = await services.projects.get(projectId);
        summaries.push(
          summarizeProject(
            project.name,
            await loop.runsOf(projectId),
            project.settings.slaMinutes,
            project.phase,
          ),
        );
      }
    }

    expect(summaries).toHaveLength(11);
    for (const summary of summaries) expect(['OPTIMIZING', 'MONITORING']).toContain(summary.phase);
    const overall = overallSummary(summaries);
    // The loop is deterministic for its seed (the rounds drive the workspace's clock, the fleet prior learns
    // from its projects in an order their evidence decides), so this floor is not at the mercy of timing.
    // It holds what the team paid over every run after the first, not the last run alone: nine rounds end
    // inside the learning phase, so the last run is one learning run and its saving swings by tens of points
    // with any change to the decisions before it (docs/benchmarks.md, "A changed setting decides again").
    expect(overall.medianSavingAfterFirstRecommendation).toBeGreaterThanOrEqual(0.25);
    expect(overall.slaViolationRateAfterLearning).toBeLessThanOrEqual(0.05);
  });

  it('leaves every job running the configuration Setpoint last wrote', async () => {
    const databricks = createDatabricksClient({ host: loop.emulator.url, token: loop.emulator.token });
    for (const job of loop.jobs) {
      const settings = (await databricks.getJob(job.jobId)).settings;
      for (const projectId of job.projectIds) {
        const project = await loop.server.services.projects.get(projectId);
        const ref = parseClusterRefKey(project.clusterKey ?? '');
        const written = (await loop.server.services.applies.history(projectId)).at(-1);
        const live = ref && findClusterSpec(settings, ref);
        expect(written, `${project.name} has an applied configuration`).toBeDefined();
        expect(live?.node_type_id).toBe(written?.configuration.node_type_id);
        expect(live?.num_workers ?? live?.autoscale).toEqual(
          written?.configuration.num_workers ?? written?.configuration.autoscale,
        );
      }
    }
  });
});
