import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import type { SpawnedServer } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { apiClient, createKey, deploymentEnv, startApi, startWorker } from './support/process-stack.js';
import { eventually, fixturesDir } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const eventLog = readFileSync(path.join(fixturesDir, 'databricks-aws-eventlog'));
const clusterReport = JSON.parse(
  readFileSync(path.join(fixturesDir, 'cluster-report.json'), 'utf8'),
) as unknown;

/**
 * Serves the event log; the first request gets half the bytes and then hangs, so a worker is
 * provably mid-ingestion when the test kills it.
 */
function stallingLogServer() {
  let requests = 0;
  let firstArrived: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => {
    firstArrived = resolve;
  });
  const server: Server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(eventLog.length),
    });
    if (requests === 1) {
      response.write(eventLog.subarray(0, eventLog.length / 2));
      firstArrived();
      return;
    }
    response.end(eventLog);
  });
  return {
    server,
    firstRequest,
    requests: () => requests,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs/42/eventlog`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function crashScenario(databaseUrl: () => Promise<string | undefined>, restartedWorkers: number) {
  const processes: SpawnedServer[] = [];
  const logServer = stallingLogServer();

  afterEach(async () => {
    for (const running of processes.splice(0)) await running.stop();
    await logServer.close();
  });

  it('a worker killed with SIGKILL mid-ingestion loses nothing: the job resumes and exactly one run exists', async () => {
    const env = deploymentEnv(await databaseUrl(), {
      SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
      // Long enough that a busy machine does not expire healthy jobs (pg-boss has no heartbeat).
      SETPOINT_JOB_LEASE_SECONDS: '10',
    });
    const key = await createKey(env);
    const api = await startApi(env, false);
    processes.push(api);
    const client = await apiClient(api.url, key);
    const project = (await client.call('POST', '/api/v1/projects', { name: 'crash' })).json();
    const uri = await logServer.listen();
    const submitted = await client.call('POST', `/api/v1/projects/${project.id}/runs`, {
      eventlog_uri: uri,
      external_run_id: 'databricks-run-42',
      cluster_report: clusterReport,
    });
    expect(submitted.status).toBe(202);

    const doomed = await startWorker(env);
    await logServer.firstRequest;
    doomed.process.kill('SIGKILL');
    await new Promise((resolve) => doomed.process.once('exit', resolve));
    expect(doomed.process.signalCode).toBe('SIGKILL');

    for (let i = 0; i < restartedWorkers; i += 1) processes.push(await startWorker(env));

    const run = await eventually(
      async () => {
        const body = (
          await client.call('GET', `/api/v1/projects/${project.id}/runs/${submitted.json().id}`)
        ).json();
        return ['DONE', 'FAILED'].includes(body.pipeline_state) ? body : undefined;
      },
      150_000,
      'the run to finish after the restart',
    );
    expect(run).toMatchObject({ pipeline_state: 'DONE', error: null, eventlog_bytes: eventLog.length });
    expect(logServer.requests()).toBeGreaterThanOrEqual(2);
    const rec = await eventually(async () => {
      const response = await client.call('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
      return response.status === 200 ? response.json() : undefined;
    });
    expect(rec.state).toBe('SUCCESS');

    expect((await client.call('GET', `/api/v1/projects/${project.id}/runs`)).json().total).toBe(1);
    expect((await client.call('GET', `/api/v1/projects/${project.id}/recommendations`)).json().total).toBe(1);
    expect((await client.call('GET', '/api/v1/jobs/parked')).json().total).toBe(0);
  });
}

describe('crash recovery on SQLite', () => {
  crashScenario(async () => undefined, 1);
});

describeFull('crash recovery on PostgreSQL (pg-boss, two restarted workers)', 'PostgreSQL', () => {
  let database: TestPostgresDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
  });
  crashScenario(async () => {
    database = await createTestPostgresDatabase();
    return database.url;
  }, 2);
});
