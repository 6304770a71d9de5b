/**
 * `npm run bench:faults`: the fault and abuse campaign. Each class starts a fresh `setpoint serve`
 * (API + worker) on 127.0.0.1, attacks it, and counts per class: tried, handled (the expected outcome),
 * lost (accepted but never processed), duplicated (more runs than accepted uploads), the server's peak
 * RSS (VmHWM) and the slowest `/healthz` answer during the attack, probed every 100 ms from a worker
 * thread. Writes the `## Fault campaign` section of docs/reliability.md.
 *
 * PostgreSQL classes run when SETPOINT_BENCH_PG_URL (an admin URL whose user may CREATE DATABASE) or
 * the test default postgres://setpoint:setpoint@127.0.0.1:5432/postgres answers; they use a throwaway
 * database and never touch the cluster itself. The full-restart class restarts a cluster, so it runs only
 * on one named for it: SETPOINT_BENCH_PG_RESTART_CLUSTER="<version> <name>" (restarted with
 * `pg_ctlcluster`) and SETPOINT_BENCH_PG_RESTART_URL (its admin URL), e.g. a cluster made with
 * `pg_createcluster 15 faults --port 5499 --start` and dropped afterwards.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import pg from 'pg';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import {
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from '../../tests/databricks/integration-harness.js';
import { apiClient, createKey, deploymentEnv, startApi } from '../../tests/service/support/process-stack.js';
import { machineLine, repoRoot } from './docs-section.js';

const adminUrl = process.env.SETPOINT_BENCH_PG_URL ?? 'postgres://setpoint:setpoint@127.0.0.1:5432/postgres';
const fixtures = path.join(repoRoot, 'tests/fixtures/service');
const eventLog = readFileSync(path.join(fixtures, 'databricks-aws-eventlog'));
const clusterReport = readFileSync(path.join(fixtures, 'cluster-report.json'));
const uploadCapBytes = 256 * 1024 * 1024;
const terminal = new Set(['DONE', 'FAILED']);
const healthBoundMs = 1000;
/** `SETPOINT_FAULTS_ONLY=<text>|<text>` runs only the classes whose "attack database" contains a text. */
const only = process.env.SETPOINT_FAULTS_ONLY?.toLowerCase().split('|');
const wanted = (attack: string, database: Row['database'] = 'SQLite') =>
  !only || only.some((text) => `${attack} ${database}`.toLowerCase().includes(text));

interface Row {
  attack: string;
  database: 'SQLite' | 'PostgreSQL';
  expected: string;
  tried: number;
  handled: number;
  lost: number;
  duplicated: number;
  peakRssMiB: number;
  maxHealthzMs: number;
  seconds: number;
}

/** Probes `/healthz` every 100 ms on its own thread (the campaign's own work cannot delay it). */
function healthProbe(baseUrl: string) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     let max = 0, failures = 0, stop = false;
     parentPort.on('message', () => { stop = true; });
     (async () => {
       while (!stop) {
         const started = performance.now();
         try {
           const response = await fetch(workerData + '/healthz', { signal: AbortSignal.timeout(30000) });
           await response.arrayBuffer();
           if (response.status !== 200) failures++;
         } catch { failures++; }
         max = Math.max(max, performance.now() - started);
         await new Promise((resolve) => setTimeout(resolve, 100));
       }
       parentPort.postMessage({ max, failures });
     })();`,
    { eval: true, workerData: baseUrl },
  );
  return {
    async stop(): Promise<{ max: number; failures: number }> {
      const result = new Promise<{ max: number; failures: number }>((resolve) =>
        worker.once('message', resolve),
      );
      worker.postMessage('stop');
      const value = await result;
      await worker.terminate();
      return value;
    },
  };
}

function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kib / 1024);
  } catch {
    return 0;
  }
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

type Client = Awaited<ReturnType<typeof apiClient>>;

interface Upload {
  name: string;
  bytes: Uint8Array;
  withReport?: boolean;
}

async function upload(client: Client, projectId: string, file: Upload) {
  const form = new FormData();
  form.append('eventlog', new Blob([Buffer.from(file.bytes)]), file.name);
  if (file.withReport) form.append('cluster_report', new Blob([clusterReport]), 'cluster_report.json');
  form.append('external_run_id', `${file.name}-${randomBytes(4).toString('hex')}`);
  return client.call('POST', `/api/v1/projects/${projectId}/runs`, form);
}

async function runStates(client: Client, projectId: string): Promise<string[]> {
  const response = await client.call('GET', `/api/v1/projects/${projectId}/runs?limit=200`);
  return (response.json().items as Array<{ pipeline_state: string }>).map((run) => run.pipeline_state);
}

interface Deployment {
  env: NodeJS.ProcessEnv;
  database: Row['database'];
  drop(): Promise<void>;
}

async function sqliteDeployment(extra: NodeJS.ProcessEnv): Promise<Deployment> {
  return { env: deploymentEnv(undefined, extra), database: 'SQLite', drop: async () => undefined };
}

async function postgresDeployment(extra: NodeJS.ProcessEnv, admin = adminUrl): Promise<Deployment> {
  const name = `setpoint_faults_${randomBytes(5).toString('hex')}`;
  await asAdmin(`create database ${name}`, admin);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    env: deploymentEnv(url.toString(), extra),
    database: 'PostgreSQL',
    drop: () => asAdmin(`drop database if exists ${name} with (force)`, admin).then(() => undefined),
  };
}

async function asAdmin(sql: string, url = adminUrl): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function postgresAvailable(): Promise<boolean> {
  return asAdmin('select 1').then(
    () => true,
    () => false,
  );
}

const baseEnv = {
  SETPOINT_MAX_UPLOAD_BYTES: String(uploadCapBytes),
  SETPOINT_JOB_LEASE_SECONDS: '10',
  SETPOINT_LOG_LEVEL: 'warn',
};

/**
 * One attack class on a fresh server: `attack` uploads and disturbs, returning how many uploads were
 * accepted (202) and how many answers were the expected refusal; then every accepted run must reach a
 * terminal state in its expected form.
 */
async function campaign(
  attack: string,
  expected: string,
  deployment: Deployment,
  body: (context: {
    client: Client;
    baseUrl: string;
    projectId: string;
    restart(signal: NodeJS.Signals): Promise<void>;
    databaseName: string | null;
  }) => Promise<{ tried: number; accepted: number; refusedAsExpected: number }>,
  outcome: { state: 'DONE' | 'FAILED' | 'ANY' } = { state: 'ANY' },
): Promise<Row> {
  const started = performance.now();
  const key = await createKey(deployment.env);
  let server = await startApi(deployment.env, true);
  let peak = 0;
  let probe = healthProbe(server.url);
  // a killed server is not expected to answer: each incarnation's probe stops before it is killed
  const probed: Array<{ max: number; failures: number }> = [];
  const client = await apiClient(server.url, key);
  const project = (await client.call('POST', '/api/v1/projects', { name: attack.slice(0, 60) })).json();
  const databaseName = deployment.env.SETPOINT_DATABASE_URL
    ? new URL(deployment.env.SETPOINT_DATABASE_URL).pathname.slice(1)
    : null;
  let current = client;
  const result = await body({
    get client() {
      return current;
    },
    get baseUrl() {
      return server.url;
    },
    projectId: project.id,
    databaseName,
    async restart(signal) {
      peak = Math.max(peak, peakRssMiB(server.process.pid));
      probed.push(await probe.stop());
      server.process.kill(signal);
      await new Promise((resolve) => server.process.once('exit', resolve));
      server = await startApi(deployment.env, true);
      probe = healthProbe(server.url);
      current = await apiClient(server.url, key);
    },
  });
  const states =
    (await until(async () => {
      const all = await runStates(current, project.id);
      return all.every((state) => terminal.has(state)) && all.length >= result.accepted ? all : undefined;
    }, 600_000)) ?? (await runStates(current, project.id));
  peak = Math.max(peak, peakRssMiB(server.process.pid));
  let maxHealthzMs = 0;
  let healthFailures = 0;
  probed.push(await probe.stop());
  for (const { max, failures } of probed) {
    maxHealthzMs = Math.max(maxHealthzMs, max);
    healthFailures += failures;
  }
  await server.stop();
  await deployment.drop();
  const finished = states.filter((state) => terminal.has(state));
  const asExpected = finished.filter((state) => outcome.state === 'ANY' || state === outcome.state).length;
  const row: Row = {
    attack,
    database: deployment.database,
    expected,
    tried: result.tried,
    handled: result.refusedAsExpected + Math.min(asExpected, result.accepted),
    lost: Math.max(0, result.accepted - finished.length),
    duplicated: Math.max(0, states.length - result.accepted),
    peakRssMiB: peak,
    maxHealthzMs: healthFailures > 0 ? Number.POSITIVE_INFINITY : Math.round(maxHealthzMs),
    seconds: Math.round((performance.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify({ ...row, perIncarnation: probed })}\n`);
  return row;
}

/** Sends each upload; counts 202s and, for `refuse`, the 4xx refusals. */
async function sendAll(client: Client, projectId: string, uploads: Upload[], refuse = false) {
  let accepted = 0;
  let refusedAsExpected = 0;
  for (const file of uploads) {
    const response = await upload(client, projectId, file);
    if (response.status === 202) accepted += 1;
    else if (refuse && response.status >= 400 && response.status < 500) refusedAsExpected += 1;
  }
  return { tried: uploads.length, accepted, refusedAsExpected };
}

function environmentFlood(keys: number): Buffer {
  const properties: string[] = [];
  for (let i = 0; i < keys; i++) properties.push(`"spark.flood.${i.toString(36)}":"v"`);
  const lines = [
    '{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}',
    '{"Event":"SparkListenerApplicationStart","App Name":"hostile","App ID":"app-1","Timestamp":1700000000000,"User":"spark"}',
    `{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{},"Spark Properties":{${properties.join(',')}},"System Properties":{},"Classpath Entries":{}}`,
    '{"Event":"SparkListenerApplicationEnd","Timestamp":1700000060000}',
  ];
  return Buffer.from(`${lines.join('\n')}\n`);
}

function realLogs(count: number): Upload[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `eventlog-${i}`,
    bytes: eventLog,
    withReport: true,
  }));
}

async function waitForState(client: () => Client, projectId: string, state: string): Promise<void> {
  await until(
    async () => ((await runStates(client(), projectId)).includes(state) ? true : undefined),
    120_000,
  );
}

async function terminateBackends(databaseName: string | null): Promise<void> {
  if (!databaseName) return;
  await asAdmin(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${databaseName}' and pid <> pg_backend_pid()`,
  );
}

/**
 * One slow client: sends the start of a request, then one byte a second, and resolves with the
 * seconds until the server closed the connection (or `giveUpS` when it never did).
 */
function slowClient(baseUrl: string, head: string, giveUpS: number): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    let drip: NodeJS.Timeout | undefined;
    const done = (seconds: number) => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve(seconds);
    };
    const giveUp = setTimeout(() => done(giveUpS), giveUpS * 1000);
    socket.once('connect', () => {
      socket.write(head);
      drip = setInterval(() => socket.write('x'), 1000);
    });
    socket.on('data', () => undefined);
    socket.once('close', () => done((performance.now() - started) / 1000));
    socket.once('error', () => undefined);
  });
}

const signInRoutes = new Map([
  ['/api/v1/session', { username: 'admin', password: 'wrong password' }],
  ['/api/v1/auth/token', { api_key_id: 'sk_unknown', api_key_secret: 'wrong secret' }],
]);

/** Every operation of the OpenAPI document whose path and method need credentials. */
async function protectedOperations(baseUrl: string): Promise<Array<{ method: string; url: string }>> {
  const document = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const operations: Array<{ method: string; url: string }> = [];
  for (const [route, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      // the sign-in routes take credentials in their body: the row tries wrong ones there
      if (signInRoutes.has(route)) continue;
      const url = route.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      operations.push({ method: method.toUpperCase(), url });
    }
  }
  return operations;
}

/** Credentials that must all be refused: none, malformed, forged, expired-looking, a wrong key. */
function badCredentials(validToken: string): Array<Record<string, string>> {
  const [header, payload] = validToken.split('.');
  return [
    {},
    { authorization: 'Bearer' },
    { authorization: 'Bearer not-a-token' },
    { authorization: `Bearer ${header}.${payload}.forged-signature` },
    { authorization: `Bearer ${validToken}x` },
    { authorization: 'Basic YWRtaW46YWRtaW4=' },
    { cookie: 'setpoint_session=forged; setpoint_csrf=forged', 'x-csrf-token': 'forged' },
    { authorization: `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.` },
  ];
}

/**
 * Databricks API faults from the emulator, against a Setpoint server with its workers (in this process,
 * like the integration tests: peak RSS is this process's, emulator included). Three jobs run three times
 * each while the emulator answers run and log reads with 503 and 429, answers others slowly, and drops
 * the completion webhooks of the first runs; a reconciliation pass (what the scheduler does every few minutes) must
 * find those. Every run must be processed exactly once.
 */
async function databricksFaults(attack: string, expected: string): Promise<Row> {
  const started = performance.now();
  const h = await startHarness({ seed: 13 });
  const baseUrl = h.server.url;
  const probe = healthProbe(baseUrl);
  const faults = h.emulator.context.faults;
  faults.add({ kind: 'http', match: 'GET /api/2.*/jobs/runs/get*', count: 12, status: 503 });
  faults.add({
    kind: 'http',
    match: 'GET /api/2.*/jobs/runs/get*',
    offset: 20,
    count: 6,
    status: 429,
    retryAfterSeconds: 1,
  });
  faults.add({ kind: 'http', match: 'GET /api/2.0/dbfs/read*', count: 8, status: 500 });
  faults.add({ kind: 'http', match: 'GET /api/2.0/dbfs/*', count: 6, delayMs: 5000 });
  faults.add({ kind: 'drop-webhook', match: 'jobs.on_*', count: 3 });
  const jobs = ['Daily aggregation', 'Many small jobs', 'Skewed join'];
  const runs: Array<{ projectId: string; runId: string }> = [];
  for (const name of jobs) {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, name), {});
    for (let i = 0; i < 3; i++) runs.push({ projectId, runId: await h.databricks.runNow(jobId) });
  }
  // the runs end on the emulator's clock; then the reconciliation finds what lost its webhook
  for (const { runId } of runs) {
    await until(async () => {
      const run = await h.databricks.getRun(runId).catch(() => undefined);
      return run?.state.life_cycle_state === 'TERMINATED' ? true : undefined;
    }, 120_000);
  }
  await databricksIntegrationOf(h.server.services).scheduleReconciliation('faults-1');
  let handled = 0;
  for (const { projectId, runId } of runs) {
    const run = await processedRun(h, projectId, runId).catch(() => undefined);
    if (run?.pipelineState === 'DONE') handled += 1;
    else
      process.stdout.write(
        `databricks faults: run ${runId} ended ${run?.pipelineState ?? 'unprocessed'} ${run?.error ?? ''}\n`,
      );
  }
  let stored = 0;
  for (const projectId of new Set(runs.map((run) => run.projectId))) {
    const items = (await h.server.services.runs.list(projectId, { limit: 200, offset: 0 })).items;
    stored += items.length;
    process.stdout.write(
      `databricks faults: stored ${items.map((item) => `${item.externalRunId}:${item.pipelineState}`).join(' ')}\n`,
    );
  }
  const { max, failures } = await probe.stop();
  const peak = peakRssMiB(process.pid);
  const applied = faults.list().reduce((sum, rule) => sum + rule.applied, 0);
  await h.close();
  process.stdout.write(`databricks faults: ${applied} faults applied\n`);
  const row: Row = {
    attack,
    database: 'SQLite',
    expected,
    tried: runs.length,
    handled,
    lost: runs.length - handled,
    duplicated: Math.max(0, stored - runs.length),
    peakRssMiB: peak,
    maxHealthzMs: failures > 0 ? Number.POSITIVE_INFINITY : Math.round(max),
    seconds: Math.round((performance.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
  return row;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const onBoth: Array<{
    database: Row['database'];
    deploy: (extra: NodeJS.ProcessEnv) => Promise<Deployment>;
  }> = [{ database: 'SQLite', deploy: sqliteDeployment }];
  const withPostgres = await postgresAvailable();
  if (withPostgres) onBoth.push({ database: 'PostgreSQL', deploy: postgresDeployment });

  // payloads are built before each server starts: compressing them must not compete with the attack
  const bombAttack = 'hostile upload: zip bomb beyond the upload cap (3 × 1 GiB)';
  if (wanted(bombAttack)) {
    const bomb = zipSync({ eventlog: new Uint8Array(1024 * 1024 * 1024) }, { level: 9 });
    rows.push(
      await campaign(
        bombAttack,
        '4xx, nothing stored',
        await sqliteDeployment(baseEnv),
        ({ client, projectId }) =>
          sendAll(
            client,
            projectId,
            [0, 1, 2].map((i) => ({ name: `bomb-${i}.zip`, bytes: bomb })),
            true,
          ),
      ),
    );
  }
  const inflateAttack = 'hostile upload: zip expanding to 200 MiB within the cap';
  if (wanted(inflateAttack)) {
    const inflate = zipSync({ eventlog: new Uint8Array(200 * 1024 * 1024).fill(0x0a) }, { level: 9 });
    rows.push(
      await campaign(
        inflateAttack,
        'accepted, run FAILED (no events)',
        await sqliteDeployment(baseEnv),
        ({ client, projectId }) => sendAll(client, projectId, [{ name: 'inflate.zip', bytes: inflate }]),
        { state: 'FAILED' },
      ),
    );
  }
  const floodAttack = 'hostile upload: 800k Spark properties in one line (gzip)';
  if (wanted(floodAttack)) {
    const flood = gzipSync(environmentFlood(800_000));
    rows.push(
      await campaign(
        floodAttack,
        'accepted, run processed, profile small',
        await sqliteDeployment(baseEnv),
        ({ client, projectId }) =>
          sendAll(client, projectId, [{ name: 'eventlog.gz', bytes: flood, withReport: true }]),
      ),
    );
  }
  const newlinesAttack = 'hostile upload: gzip of 1 GiB of newlines';
  if (wanted(newlinesAttack)) {
    const newlines = gzipSync(Buffer.alloc(1024 * 1024 * 1024, 0x0a), { level: 9 });
    rows.push(
      await campaign(
        newlinesAttack,
        'accepted, run FAILED (decompressed limit)',
        await sqliteDeployment(baseEnv),
        ({ client, projectId }) => sendAll(client, projectId, [{ name: 'eventlog.gz', bytes: newlines }]),
        { state: 'FAILED' },
      ),
    );
  }
  const poisonAttack = 'poison logs: random bytes, truncated gzip, non-JSON text';
  if (wanted(poisonAttack)) {
    const poison = [
      { name: 'random', bytes: randomBytes(512 * 1024) },
      { name: 'truncated.gz', bytes: gzipSync(eventLog).subarray(0, 20_000) },
      { name: 'text', bytes: Buffer.from('this is not an event log\n'.repeat(10_000)) },
    ];
    rows.push(
      await campaign(
        poisonAttack,
        'accepted, each run FAILED with its error',
        await sqliteDeployment(baseEnv),
        ({ client, projectId }) => sendAll(client, projectId, poison),
        { state: 'FAILED' },
      ),
    );
  }
  const slowAttack = 'slow clients: 150 slowloris headers + 150 slow bodies (request timeout 5 s)';
  if (wanted(slowAttack)) {
    rows.push(
      await campaign(
        slowAttack,
        'each connection closed by the server within 10 s',
        await sqliteDeployment({
          ...baseEnv,
          SETPOINT_REQUEST_TIMEOUT_SECONDS: '5',
          SETPOINT_IDLE_TIMEOUT_SECONDS: '5',
        }),
        async ({ client, projectId, baseUrl: url }) => {
          const giveUpS = 90;
          // the request timeout (5 s) plus slack for a loaded machine
          const closeBoundS = 10;
          const headers = Array.from({ length: 150 }, () =>
            slowClient(url, 'GET /api/v1/projects HTTP/1.1\r\nHost: setpoint\r\nX-Slow: ', giveUpS),
          );
          const bodies = Array.from({ length: 150 }, () =>
            slowClient(
              url,
              `POST /api/v1/projects/${projectId}/runs HTTP/1.1\r\nHost: setpoint\r\nAuthorization: Bearer ${client.token}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000000\r\n\r\n--b\r\n`,
              giveUpS,
            ),
          );
          const closedAfter = await Promise.all([...headers, ...bodies]);
          const slowest = (group: number[]) => Math.max(...group).toFixed(1);
          process.stdout.write(
            `slow clients: slowest close ${slowest(closedAfter.slice(0, 150))} s (headers), ${slowest(closedAfter.slice(150))} s (bodies)\n`,
          );
          return {
            tried: closedAfter.length,
            accepted: 0,
            refusedAsExpected: closedAfter.filter((seconds) => seconds <= closeBoundS).length,
          };
        },
      ),
    );
  }
  const authAttack = 'auth: every protected API operation × 8 bad credentials';
  if (wanted(authAttack)) {
    rows.push(
      await campaign(
        authAttack,
        '401, 403 or 429',
        await sqliteDeployment(baseEnv),
        async ({ client, baseUrl: url }) => {
          let tried = 0;
          let refused = 0;
          for (const operation of await protectedOperations(url)) {
            for (const headers of badCredentials(client.token)) {
              tried += 1;
              const response = await fetch(`${url}${operation.url}`, {
                method: operation.method,
                headers: { ...headers, 'x-forwarded-for': `10.9.${tried >> 8}.${tried & 255}` },
                ...(['POST', 'PUT', 'PATCH'].includes(operation.method) && { body: '{}' }),
              });
              await response.arrayBuffer();
              if ([401, 403, 429].includes(response.status)) refused += 1;
              else
                process.stdout.write(
                  `auth: ${operation.method} ${operation.url} answered ${response.status}\n`,
                );
            }
          }
          return { tried, accepted: 0, refusedAsExpected: refused };
        },
      ),
    );
  }
  const ssrfAttack = 'SSRF: workspace hosts and S3 endpoints at loopback, private, metadata, non-http';
  if (wanted(ssrfAttack)) {
    const seen: string[] = [];
    const target = createServer((request, response) => {
      seen.push(request.url ?? '/');
      response.end('{}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as AddressInfo).port;
    const hostile = [
      `http://127.0.0.1:${port}`,
      `http://[::1]:${port}`,
      `http://localhost:${port}`,
      `http://2130706433:${port}`,
      `http://0x7f000001:${port}`,
      `http://127.1:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      'http://169.254.169.254',
      'http://[fd00:ec2::254]',
      'http://10.0.0.5',
      'http://192.168.1.1',
      'http://[64:ff9b::7f00:1]',
      'file:///etc/passwd',
      'gopher://127.0.0.1:70/x',
      'javascript:alert(1)',
    ];
    rows.push(
      await campaign(
        ssrfAttack,
        '400, the target receives nothing',
        await sqliteDeployment(baseEnv),
        async ({ client }) => {
          let refused = 0;
          const bodies = hostile.flatMap((host) => [
            { name: 'w', cloud: 'aws', host, credentials: { token: 'dapi-secret' } },
            {
              name: 'w',
              cloud: 'aws',
              host: 'https://dbc-1234.cloud.databricks.com',
              credentials: {
                token: 'dapi-secret',
                aws_access_key_id: 'AKIA',
                aws_secret_access_key: 'secret',
                s3_endpoint: host,
              },
            },
          ]);
          for (const body of bodies) {
            const response = await client.call('POST', '/api/v1/workspaces', body);
            if (response.status === 400) refused += 1;
            else process.stdout.write(`ssrf: ${JSON.stringify(body)} answered ${response.status}\n`);
          }
          return { tried: bodies.length, accepted: 0, refusedAsExpected: seen.length === 0 ? refused : 0 };
        },
      ),
    );
    target.close();
  }
  const databricksAttack =
    'Databricks API faults: 503/429/500 on run and log reads, 5 s answers, 3 completion webhooks dropped (9 runs)';
  if (wanted(databricksAttack)) {
    rows.push(
      await databricksFaults(databricksAttack, 'every run DONE once (lost webhooks by reconciliation)'),
    );
  }
  const crashAttack = 'crash: kill -9 the server mid-parse, restart (10 runs)';
  for (const { database, deploy } of onBoth) {
    if (!wanted(crashAttack, database)) continue;
    rows.push(
      await campaign(
        crashAttack,
        'every run DONE once',
        await deploy(baseEnv),
        async ({ client, projectId, restart }) => {
          const sent = await sendAll(client, projectId, realLogs(10));
          await waitForState(() => client, projectId, 'PARSING');
          await restart('SIGKILL');
          return sent;
        },
        { state: 'DONE' },
      ),
    );
  }
  const terminateAttack = 'database: every connection terminated 3 times while 10 runs process';
  if (withPostgres && wanted(terminateAttack, 'PostgreSQL')) {
    rows.push(
      await campaign(
        terminateAttack,
        'every run DONE once',
        await postgresDeployment(baseEnv),
        async ({ client, projectId, databaseName }) => {
          const sent = await sendAll(client, projectId, realLogs(10));
          for (let i = 0; i < 3; i++) {
            await terminateBackends(databaseName);
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
          return sent;
        },
        { state: 'DONE' },
      ),
    );
  }
  const restartAttack = 'database: PostgreSQL server restarted (pg_ctlcluster restart) while 10 runs process';
  const restartCluster = process.env.SETPOINT_BENCH_PG_RESTART_CLUSTER?.split(' ');
  const restartUrl = process.env.SETPOINT_BENCH_PG_RESTART_URL;
  if (restartCluster && restartUrl && wanted(restartAttack, 'PostgreSQL')) {
    rows.push(
      await campaign(
        restartAttack,
        'every run DONE once',
        await postgresDeployment(baseEnv, restartUrl),
        async ({ client, projectId }) => {
          const sent = await sendAll(client, projectId, realLogs(10));
          await waitForState(() => client, projectId, 'PARSING');
          execFileSync('pg_ctlcluster', [...restartCluster, 'restart'], { stdio: 'inherit' });
          return sent;
        },
        { state: 'DONE' },
      ),
    );
  }
  writeReliabilitySection(rows);
}

function writeReliabilitySection(rows: Row[]): void {
  const green = (row: Row) =>
    row.handled === row.tried && row.lost === 0 && row.duplicated === 0 && row.maxHealthzMs <= healthBoundMs;
  const header =
    '| attack | database | expected | tried | handled | lost | duplicated | peak RSS (MiB) | max `/healthz` (ms) | result |';
  const docs = path.join(repoRoot, 'docs/reliability.md');
  let text = readFileSync(docs, 'utf8');
  // a partial run (SETPOINT_FAULTS_ONLY) replaces its own rows and keeps the others' last figures
  const lines = new Map<string, string>();
  const keyOf = (line: string) => line.split(' | ').slice(0, 2).join(' | ');
  const tableStart = text.indexOf(`${header}\n`);
  if (tableStart !== -1) {
    for (const line of text.slice(tableStart).split('\n').slice(2)) {
      if (!line.startsWith('| ')) break;
      lines.set(keyOf(line), line);
    }
  }
  for (const row of rows) {
    const line = `| ${row.attack} | ${row.database} | ${row.expected} | ${row.tried} | ${row.handled} | ${row.lost} | ${row.duplicated} | ${row.peakRssMiB} | ${Number.isFinite(row.maxHealthzMs) ? row.maxHealthzMs : 'failed'} | ${green(row) ? 'green' : 'RED'} |`;
    lines.set(keyOf(line), line);
  }
  const table = [header, '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |', ...lines.values()];
  const section = [
    '## Fault campaign',
    '',
    `Command: \`npm run bench:faults\`. ${machineLine()}`,
    '',
    `Each class runs on a fresh \`setpoint serve\` (API + worker, upload cap ${uploadCapBytes / 2 ** 20} MiB, 10 s job lease).`,
    '*handled*: answered as expected (a refusal with 4xx, or an accepted run that reached the expected',
    'state); *lost*: accepted runs that never reached DONE or FAILED; *duplicated*: runs beyond the',
    "accepted uploads; *peak RSS*: the server process's VmHWM (the largest of its incarnations);",
    `*max \`/healthz\`*: the slowest answer of a probe every 100 ms during the class (goal ≤ ${healthBoundMs} ms).`,
    "The Databricks row runs Setpoint and the emulator in the campaign's process (as the integration",
    "tests do), so its peak RSS is that process's and its `/healthz` shares the event loop with the",
    'emulator. The PostgreSQL restart row runs only on a cluster named for it',
    '(`SETPOINT_BENCH_PG_RESTART_CLUSTER="15 faults"`, `SETPOINT_BENCH_PG_RESTART_URL`); a partial run',
    '(`SETPOINT_FAULTS_ONLY=<text>|<text>`) replaces its own rows and keeps the others.',
    '',
    ...table,
    '',
  ].join('\n');
  const start = text.indexOf('\n## Fault campaign\n');
  if (start === -1) text = `${text.trimEnd()}\n\n${section}`;
  else {
    const next = text.indexOf('\n## ', start + 1);
    text = `${text.slice(0, start + 1)}${section}${next === -1 ? '' : `\n${text.slice(next + 1)}`}`;
  }
  writeFileSync(docs, text);
}

await main();
