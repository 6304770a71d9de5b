import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import type { DiscoveredJob, DiscoverResult } from 'setpoint/platforms/databricks/onboarding/discovery';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/run-cli.js';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

// Each estimate is an optimizer pass; the first of the process learns the shipped fleet prior.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

/** Issue 35's third finding, through the service and the CLI against the emulator. */
describe('Discover estimates from evidence', () => {
  let h: Harness;
  let result: DiscoverResult;
  const ids: Record<'pool' | 'serverless' | 'imported' | 'idle', string> = {
    pool: '',
    serverless: '',
    imported: '',
    idle: '',
  };
  const job = (id: string): DiscoveredJob => {
    const found = result.jobs.find((entry) => entry.jobId === id);
    if (!found) throw new Error(`job ${id} is not in Discover`);
    return found;
  };

  async function workspacePost<T>(route: string, body: unknown): Promise<T> {
    const response = await fetch(`${h.emulator.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${route} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** Runs a job to its end in the emulator (its clock runs 3600× faster). */
  async function finishedRun(jobId: string): Promise<string> {
    const runId = await h.databricks.runNow(jobId);
    await eventually(async () => {
      const run = await h.databricks.getRun(runId);
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, `run ${runId} to finish`);
    return runId;
  }

  beforeAll(async () => {
    h = await startHarness({ seed: 23 });
    const { instance_pool_id: poolId } = await workspacePost<{ instance_pool_id: string }>(
      '/api/2.0/instance-pools/create',
      {
        instance_pool_name: 'r5d-pool',
        node_type_id: 'r5d.xlarge',
        aws_attributes: { availability: 'ON_DEMAND' },
      },
    );
    // Sized far past what a skewed join can use: there is something to save, and the pool fixes the node type.
    ids.pool = await copyJob(h, 'Skewed join', 'Skewed join (pool)', (settings) => {
      const cluster = (settings.tasks as Array<{ new_cluster: Record<string, unknown> }>)[0]?.new_cluster;
      if (!cluster) return;
      delete cluster.node_type_id;
      delete cluster.driver_node_type_id;
      delete cluster.aws_attributes;
      cluster.instance_pool_id = poolId;
      cluster.num_workers = 24;
    });
    ids.serverless = String(
      (
        await workspacePost<{ job_id: number | string }>('/api/2.1/jobs/create', {
          name: 'Serverless report',
          tasks: [
            {
              task_key: 'main',
              spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
              environment_key: 'default',
            },
          ],
          environments: [{ environment_key: 'default', spec: { client: '2' } }],
        })
      ).job_id,
    );
    ids.idle = await jobIdByName(h.databricks, 'Many small jobs');
    for (let i = 0; i < 3; i++) await finishedRun(ids.pool);
    const imported = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {
      slaMinutes: 60,
    });
    ids.imported = imported.jobId;
    await processedRun(h, imported.projectId, await h.databricks.runNow(imported.jobId));
    await eventually(
      () => h.server.services.recommendations.latest(imported.projectId).catch(() => undefined),
      'the imported job’s first recommendation',
      150_000,
    );
    result = await databricksIntegrationOf(h.server.services).discover(h.workspaceId);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('estimates a job from its own runs with the basis, not a flat share of its cost', () => {
    const pool = job(ids.pool);
    expect(pool.runsInWindow).toBe(3);
    expect(pool.monthlyCostUsd).toBeGreaterThan(0);
    expect(pool.savingBasis).toMatch(/^3 runs of this job on 24 × r5d\.xlarge/);
    expect(pool.savingBasis).toMatch(/fleet model \(\d+ jobs\)/);
    // The figure is what its basis says: (cost a run now − the confident choice's) × runs a month.
    const stated = pool.savingBasis?.match(
      /expected to cost \$([\d.]+) a run against \$([\d.]+).*× ([\d.]+) runs a month/,
    );
    if (pool.estimatedMonthlySavingsUsd !== 0) {
      expect(stated, pool.savingBasis ?? '').not.toBeNull();
      const [, choice, now, runs] = stated!.map(Number);
      expect(pool.estimatedMonthlySavingsUsd).toBeCloseTo((now! - choice!) * runs!, 0);
    } else {
      expect(pool.savingNote).toMatch(/^nothing to save/);
    }
    for (const entry of result.jobs) {
      if (entry.estimatedMonthlySavingsUsd === null || entry.monthlyCostUsd === null) continue;
      expect(entry.savingBasis, entry.name).not.toBeNull();
      if (entry.monthlyCostUsd > 0)
        expect(entry.estimatedMonthlySavingsUsd / entry.monthlyCostUsd, entry.name).not.toBeCloseTo(0.3, 6);
    }
  });

  it('prices an instance-pool job from the pool’s node type and market', () => {
    const pool = job(ids.pool);
    expect(pool.costNote).toBeNull();
    expect(pool.savingBasis).toMatch(/r5d\.xlarge, on-demand/);
  });

  it('says why a serverless job’s cost is unknown instead of showing $0', () => {
    const serverless = job(ids.serverless);
    expect(serverless.compute).toBe('serverless');
    expect(serverless.monthlyCostUsd).toBeNull();
    // no SQL warehouse here: the bill cannot be read, and the note says what to do
    expect(serverless.costNote).toMatch(
      /^runs on serverless compute, billed only in system\.billing\.usage: .+/,
    );
    expect(serverless.estimatedMonthlySavingsUsd).toBeNull();
    expect(serverless.savingNote).toMatch(/serverless compute is sized by Databricks/);
  });

  it('does not estimate a job without runs, and says why', () => {
    const idle = job(ids.idle);
    expect(idle.runsInWindow).toBe(0);
    expect(idle.estimatedMonthlySavingsUsd).toBeNull();
    expect(idle.savingNote).toBe('not estimated: no run in the last 30 days to learn from');
    expect(idle.costNote).toBe('no run in the last 30 days');
  });

  it('shows what is left for a job Setpoint already optimizes, not a new estimate', () => {
    const imported = job(ids.imported);
    expect(imported.imported).toBe(true);
    expect(
      imported.savingBasis?.startsWith('what is left: the newest recommendation predicts') ||
        imported.savingBasis === 'already optimized: Setpoint keeps its cluster as it is',
      imported.savingBasis ?? imported.savingNote ?? '',
    ).toBe(true);
  });

  it('counts among the top jobs exactly the jobs with a saving, largest first', () => {
    const top = result.findings.find((finding) => finding.id === 'top-savings');
    const withSaving = result.jobs
      .filter((entry) => (entry.estimatedMonthlySavingsUsd ?? 0) > 0)
      .sort((a, b) => (b.estimatedMonthlySavingsUsd ?? 0) - (a.estimatedMonthlySavingsUsd ?? 0));
    expect(top?.jobIds).toEqual(withSaving.slice(0, 10).map((entry) => entry.jobId));
    expect(top?.jobIds).not.toContain(ids.idle);
    // the count agrees with its noun: "1 of 10 jobs has a saving", never "every 1 job with a saving"
    expect(top?.detail).toContain(
      `${withSaving.length} of ${result.jobs.length} jobs ${withSaving.length === 1 ? 'has' : 'have'} a saving`,
    );
    expect(top?.detail).not.toMatch(/every \d/);
  });

  it('prints in the CLI every reason, and money in cents', async () => {
    const key = await h.server.services.apiKeys.create('discover-test', 'test');
    const cli = await runCli(['workspaces', 'discover', h.workspaceId], {
      env: {
        SETPOINT_URL: h.server.url,
        SETPOINT_API_KEY_ID: key.id,
        SETPOINT_API_KEY_SECRET: key.secret,
        SETPOINT_HOME: mkdtempSync(path.join(tmpdir(), 'setpoint-discover-cli-')),
      },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const row = cli.stdout.split('\n').find((line) => line.startsWith(`${ids.pool} `));
    expect(row).toMatch(/\$\d[\d,]*\.\d\d\s+(\$\d[\d,]*\.\d\d|—)/);
    const notes = cli.stdout.slice(cli.stdout.indexOf('Saving estimates:'));
    expect(notes).toContain(
      `${ids.idle} Many small jobs: not estimated: no run in the last 30 days to learn from`,
    );
    expect(notes).toContain(
      `${ids.serverless} Serverless report: not estimated: serverless compute is sized`,
    );
    expect(cli.stdout).toContain(
      `${ids.serverless} Serverless report: runs on serverless compute, billed only in system.billing.usage`,
    );
    expect(cli.stdout).toMatch(/^Top jobs to optimize \(\d+\): /m);
  });
});
