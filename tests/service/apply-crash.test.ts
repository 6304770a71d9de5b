import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { openStore } from 'setpoint/composition/open-store';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobIdByName } from '../support/job-by-name.js';
import { pollUntil } from '../support/poll-until.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import type { SpawnedServer } from '../support/spawn-server.js';
import { storeRecommendation } from '../support/stored-recommendation.js';
import { describeFull } from '../support/tiers.js';
import { apiClient, createKey, deploymentEnv, startApi } from './support/process-stack.js';

// Two server processes start in turn; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const eventually = <T>(probe: () => Promise<T | undefined>, what: string) =>
  pollUntil(probe, what, { timeoutMs: 120_000, retryErrors: true });

/**
 * A server process killed with SIGKILL in the middle of an apply, then started again on the same database.
 * The emulator holds jobs/update's answer back: after changing the job (the write has provably landed while
 * Setpoint still waits for the answer) or instead of changing it (the write never lands). The test kills the
 * server while it waits.
 */
function crashScenario(databaseUrl: () => string | undefined) {
  let emulator: RunningEmulator;
  let env: NodeJS.ProcessEnv;
  let key: { id: string; secret: string };
  let server: SpawnedServer | undefined;
  let client: Awaited<ReturnType<typeof apiClient>>;
  let workspaceId: string;
  let databricks: ReturnType<typeof createDatabricksClient>;

  beforeAll(async () => {
    emulator = await startEmulator({
      nodeSpecs: catalogNodeSpecs,
      port: 0,
      seed: 31,
      clockSpeed: 3600,
      rateLimitScale: 0,
      cloud: 'aws',
    });
    env = deploymentEnv(databaseUrl(), {
      SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
      SETPOINT_LOG_LEVEL: 'warn',
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
      // the killed process's job and intent are taken over once this runs out
      SETPOINT_JOB_LEASE_SECONDS: '3',
      // a job that meets the killed process's lock still held is tried again soon after
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '1',
    });
    key = await createKey(env);
    server = await startApi(env, true);
    client = await apiClient(server.url, key);
    workspaceId = (
      await client.call('POST', '/api/v1/workspaces', {
        name: 'emulated',
        platform: 'databricks',
        cloud: 'aws',
        region: 'us-west-2',
        host: emulator.url,
        credentials: { token: emulator.token },
      })
    ).json().id;
    databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
  });

  afterAll(async () => {
    await server?.stop();
    await emulator?.close();
  });

  /** Kills the server with SIGKILL and starts another on the same database. */
  async function crashAndRestart(): Promise<void> {
    const killed = server;
    if (!killed) throw new Error('no server is running');
    server = undefined;
    const exited = new Promise((resolve) => killed.process.once('exit', resolve));
    killed.process.kill('SIGKILL');
    await exited;
    server = await startApi(env, true);
    client = await apiClient(server.url, key);
  }

  /** A job imported with auto-apply on, and a recommendation for it, as the pipeline stores one. */
  async function projectWithRecommendation(jobName: string, recommendationId: string) {
    const jobId = await jobIdByName(databricks, jobName);
    const imported = await client.call('POST', `/api/v1/workspaces/${workspaceId}/import`, {
      job_ids: [jobId],
      settings: { autoApply: true },
    });
    expect(imported.status).toBe(200);
    const project = imported.json().jobs[0].projects[0];
    const ref = parseClusterRefKey(project.cluster_key);
    if (!ref) throw new Error('the imported project has no cluster');
    const nodeTypeNow = async () =>
      findClusterSpec((await databricks.getJob(jobId)).settings, ref)?.node_type_id;
    expect(await nodeTypeNow()).not.toBe('c5d.2xlarge');
    const store = await openStore({ dataDir: env.SETPOINT_DATA_DIR as string, databaseUrl: databaseUrl() });
    await storeRecommendation(store.db, {
      projectId: project.id,
      id: recommendationId,
      configuration: { node_type_id: 'c5d.2xlarge', num_workers: 3 },
      explanation: 'fewer, faster nodes',
      phase: 'OPTIMIZING',
    }).finally(() => store.close());
    return { projectId: project.id as string, nodeTypeNow };
  }

  const appliedOnce = async (projectId: string) =>
    eventually(async () => {
      const answer = (await client.call('GET', `/api/v1/projects/${projectId}/applied-configs`)).json();
      return answer.items.length > 1 ? answer : undefined;
    }, 'the apply to be recorded after the restart');

  /** The restarted server ran a queued apply to its end (its metrics count it). */
  const applyJobDone = () =>
    eventually(async () => {
      const metrics = (await client.call('GET', '/metrics')).text;
      const done = /setpoint_job_duration_seconds_count\{kind="project\.apply",outcome="done"\} (\d+)/.exec(
        metrics,
      );
      return Number(done?.[1] ?? 0) >= 1 ? true : undefined;
    }, 'the queued apply to run again and end');

  const audit = async (action: string, projectId: string) =>
    (await client.call('GET', `/api/v1/audit?action=${action}&project_id=${projectId}`)).json().items;

  it("is recognised on restart as Setpoint's own write when it landed: recorded once, no external change, auto-apply not paused", async () => {
    const { projectId, nodeTypeNow } = await projectWithRecommendation('Skewed join', 'rec_written');
    // jobs/update changes the job, then its answer waits: the server is killed before it can record
    const late = emulator.context.faults.add({
      kind: 'http',
      match: 'POST /api/2.*/jobs/update',
      afterHandler: true,
      delayMs: 20_000,
      count: 1,
    });
    const asked = await client.call(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/rec_written/apply`,
    );
    expect(asked.status).toBe(202);
    await eventually(
      async () => ((await nodeTypeNow()) === 'c5d.2xlarge' ? true : undefined),
      'the job to hold the written cluster',
    );
    expect(late.applied).toBe(1);
    await crashAndRestart();

    const history = await appliedOnce(projectId);
    // recorded once, as the apply it was, by the person who asked; nothing taken for an outside edit
    expect(history.items.map((item: { kind: string; actor: string }) => [item.kind, item.actor])).toEqual([
      ['baseline', expect.any(String)],
      ['apply', expect.stringMatching(/^api-key:/)],
    ]);
    expect(history.items[1]).toMatchObject({
      recommendation_id: 'rec_written',
      cluster: expect.objectContaining({ node_type_id: 'c5d.2xlarge' }),
    });
    expect(history.auto_apply_paused).toBe(false);
    expect(await audit('external_change', projectId)).toHaveLength(0);
    expect(await audit('apply_recovered', projectId)).toEqual([
      expect.objectContaining({
        actor: 'setpoint',
        detail: expect.objectContaining({ kind: 'apply', recommendation_id: 'rec_written' }),
      }),
    ]);
    // the queued apply ends once its job runs again in the restarted server, and writes nothing more
    await applyJobDone();
    expect(late.seen).toBe(1);
    expect(await nodeTypeNow()).toBe('c5d.2xlarge');
    const parked = (await client.call('GET', '/api/v1/jobs/parked')).json();
    expect(parked.items).toHaveLength(0);
  });

  it('is reported on restart and written once when it had not landed', async () => {
    const { projectId, nodeTypeNow } = await projectWithRecommendation('Daily aggregation', 'rec_unwritten');
    const before = await nodeTypeNow();
    // jobs/update answers late with an error and changes nothing: the server is killed while it waits
    const refused = emulator.context.faults.add({
      kind: 'http',
      match: 'POST /api/2.*/jobs/update',
      status: 503,
      delayMs: 20_000,
      count: 1,
    });
    const asked = await client.call(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/rec_unwritten/apply`,
    );
    expect(asked.status).toBe(202);
    await eventually(async () => (refused.applied === 1 ? true : undefined), 'the write to be under way');
    expect(await nodeTypeNow()).toBe(before);
    await crashAndRestart();

    const history = await appliedOnce(projectId);
    await applyJobDone();
    expect(history.items.map((item: { kind: string }) => item.kind)).toEqual(['baseline', 'apply']);
    expect(history.items[1]).toMatchObject({
      recommendation_id: 'rec_unwritten',
      cluster: expect.objectContaining({ node_type_id: 'c5d.2xlarge' }),
    });
    expect(await nodeTypeNow()).toBe('c5d.2xlarge');
    // the stopped write was reported, not taken for Setpoint's own nor for an outside edit
    expect(await audit('apply_abandoned', projectId)).toEqual([
      expect.objectContaining({
        actor: 'setpoint',
        detail: expect.objectContaining({ kind: 'apply', recommendation_id: 'rec_unwritten' }),
      }),
    ]);
    expect(await audit('apply_recovered', projectId)).toHaveLength(0);
    expect(await audit('external_change', projectId)).toHaveLength(0);
    expect(history.auto_apply_paused).toBe(false);
    // one try before the crash, one after
    expect(refused.seen).toBe(2);
  });
}

describe('an apply whose process is killed after the write and before the record (SQLite)', () => {
  crashScenario(() => undefined);
});

describeFull(
  'an apply whose process is killed after the write and before the record (PostgreSQL)',
  'a PostgreSQL server (SETPOINT_TEST_PG_URL)',
  () => {
    let database: TestPostgresDatabase | undefined;
    beforeAll(async () => {
      database = await createTestPostgresDatabase();
    });
    // registered before the scenario's own after-hook, so it runs after the servers have stopped
    afterAll(async () => {
      await database?.drop();
    });
    crashScenario(() => database?.url);
  },
);
