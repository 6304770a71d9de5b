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
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as zlib from 'node:zlib';
import { gzipSync } from 'node:zlib';
import { startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { S3Client } from '@setpoint/foundation/s3';
import { zipSync } from 'fflate';
import pg from 'pg';
import { openStore } from 'setpoint/composition/open-store';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { apiClient, createKey, deploymentEnv, startApi } from '../../tests/service/support/process-stack.js';
import { storeFailedNotification } from '../../tests/support/failed-notification.js';
import { jobIdByName } from '../../tests/support/job-by-name.js';
import { manyStageEventLog, twoStageLogAt } from '../../tests/support/many-stage-eventlog.js';
import {
  type S3FaultProxy,
  startS3FaultProxy,
  startS3TestServer,
} from '../../tests/support/s3-test-server.js';
import { startSmtpListener } from '../../tests/support/smtp-listener.js';
import { spawnSetpoint } from '../../tests/support/spawn-server.js';
import { storeRecommendation } from '../../tests/support/stored-recommendation.js';
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
  /** The machine's 1-minute load average, the higher of the class's start and end (2 cores, shared). */
  load: number;
  /** The row is red when the peak RSS is above this (MiB); the bound is named in `expected`. */
  rssBoundMiB?: number;
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

/** A fresh `setpoint serve` (API and worker) for `env`, its `/healthz` probe, and a client with a new key. */
async function probedServer(env: NodeJS.ProcessEnv) {
  const key = await createKey(env);
  const server = await startApi(env, true);
  const probe = healthProbe(server.url);
  const client = await apiClient(server.url, key);
  return { server, probe, client };
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

/** What the campaign reads of a run. */
interface RunItem {
  pipeline_state: string;
  error: string | null;
  cost: unknown;
}

/** Every run, or undefined when a page was refused (a 429, a restarting server): ask again later. */
async function projectRuns(client: Client, projectId: string): Promise<RunItem[] | undefined> {
  const runs: RunItem[] = [];
  for (let offset = 0; ; offset += 500) {
    const response = await client.call(
      'GET',
      `/api/v1/projects/${projectId}/runs?limit=500&offset=${offset}`,
    );
    if (response.status !== 200) return undefined;
    const page = response.json() as { items: RunItem[]; total: number };
    runs.push(...page.items);
    if (page.items.length === 0 || runs.length >= page.total) return runs;
  }
}

/** Every run's state (see `projectRuns`). */
async function runStates(client: Client, projectId: string): Promise<string[] | undefined> {
  return (await projectRuns(client, projectId))?.map((run) => run.pipeline_state);
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
/** The 1-minute load average now, for a row's `load` (the higher of its start and end). */
const loadNow = () => Number((loadavg()[0] ?? 0).toFixed(1));

/** The state every accepted run must end in, and what else its record must show (`check`). */
interface Outcome {
  state: 'DONE' | 'FAILED' | 'ANY';
  check?: (run: RunItem) => boolean;
  /** Peak RSS above this fails the row (MiB). */
  rssBoundMiB?: number;
}

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
  outcome: Outcome = { state: 'ANY' },
): Promise<Row> {
  const started = performance.now();
  const loadAtStart = loadNow();
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
  // a class that throws must not leave its server running (and loading the machine) behind it
  const stopOnError = (error: unknown) =>
    server.stop().then(
      () => Promise.reject(error),
      () => Promise.reject(error),
    );
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
  }).catch(stopOnError);
  const runs =
    (await until(async () => {
      const all = await projectRuns(current, project.id);
      return all?.every((run) => terminal.has(run.pipeline_state)) && all.length >= result.accepted
        ? all
        : undefined;
    }, 600_000).catch(stopOnError)) ??
    (await projectRuns(current, project.id)) ??
    [];
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
  const finished = runs.filter((run) => terminal.has(run.pipeline_state));
  const asExpected = finished.filter(
    (run) =>
      (outcome.state === 'ANY' || run.pipeline_state === outcome.state) && (outcome.check?.(run) ?? true),
  ).length;
  const row: Row = {
    attack,
    database: deployment.database,
    expected,
    tried: result.tried,
    handled: result.refusedAsExpected + Math.min(asExpected, result.accepted),
    lost: Math.max(0, result.accepted - finished.length),
    duplicated: Math.max(0, runs.length - result.accepted),
    peakRssMiB: peak,
    maxHealthzMs: healthFailures > 0 ? Number.POSITIVE_INFINITY : Math.round(maxHealthzMs),
    seconds: Math.round((performance.now() - started) / 1000),
    load: Math.max(loadAtStart, loadNow()),
    ...(outcome.rssBoundMiB !== undefined && { rssBoundMiB: outcome.rssBoundMiB }),
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
    async () => ((await runStates(client(), projectId))?.includes(state) ? true : undefined),
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

/** Every file below `dir` (the server's data directory: database, WAL, blobs, scratch). */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Where a secret leaked: the names of the places (files, the server's output, answers) that hold it. */
function placesHolding(secret: string, places: Map<string, Buffer | string>): string[] {
  return [...places].filter(([, content]) => content.includes(secret)).map(([name]) => name);
}

/**
 * Databricks API faults from the emulator, which runs as its own process (`setpoint emulator`), as a
 * real workspace is not in Setpoint's process, against a `setpoint serve` process (API + worker) like
 * every other class: its peak RSS and `/healthz` are Setpoint's alone. Three jobs run three times each
 * while the emulator answers run and log reads with 503 and 429, answers others slowly, and drops the
 * completion webhooks of the first runs; the server's own reconciliation (every 5 s here) must find
 * those. Every run must be processed exactly once. Afterwards the workspace token (random, 40
 * characters) must appear nowhere: database, WAL, blobs, the server's log, the API's answers.
 */
async function databricksFaults(attack: string, expected: string): Promise<{ row: Row; secrets: Row }> {
  const started = performance.now();
  const loadAtStart = loadNow();
  const token = `dapi${randomBytes(18).toString('hex')}`;
  const emulator = await spawnSetpoint(
    [
      'emulator',
      '--port',
      '0',
      '--seed',
      '13',
      '--clock-speed',
      '3600',
      '--rate-limit-scale',
      '0',
      '--token',
      token,
    ],
    /url=(http:\/\/\S+)/,
  );
  const faultRules = [
    { kind: 'http', match: 'GET /api/2.*/jobs/runs/get*', count: 12, status: 503 },
    {
      kind: 'http',
      match: 'GET /api/2.*/jobs/runs/get*',
      offset: 20,
      count: 6,
      status: 429,
      retryAfterSeconds: 1,
    },
    { kind: 'http', match: 'GET /api/2.0/dbfs/read*', count: 8, status: 500 },
    { kind: 'http', match: 'GET /api/2.0/dbfs/*', count: 6, delayMs: 5000 },
    { kind: 'drop-webhook', match: 'jobs.on_*', count: 3 },
  ];
  const admin = (method: string, url: string, body?: unknown) =>
    fetch(`${emulator.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (response) => {
      if (!response.ok) throw new Error(`emulator ${method} ${url} answered ${response.status}`);
      return response.json() as Promise<{ faults: Array<{ applied: number }> }>;
    });
  const env = deploymentEnv(undefined, {
    ...baseEnv,
    SETPOINT_LOG_LEVEL: 'info',
    SETPOINT_LOG_COMPLETENESS_POLL_MS: '50',
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
    SETPOINT_JOB_MAX_ATTEMPTS: '12',
    SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '8',
    SETPOINT_RECONCILE_INTERVAL_SECONDS: '5',
    // the emulator's clock runs 3600× faster: a day of it passes in 24 s
    SETPOINT_RECONCILE_LOOKBACK_HOURS: '168',
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
  });
  const { server, probe, client } = await probedServer(env);
  const answers = new Map<string, string>();
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await client.call(method, url, body);
    answers.set(`answer ${answers.size + 1} (${method} ${url})`, JSON.stringify(response.json()));
    return response;
  };
  const workspace = (
    await call('POST', '/api/v1/workspaces', {
      name: 'emulated',
      cloud: 'aws',
      region: 'us-west-2',
      host: emulator.url,
      plan_type: 'Premium',
      compute_type: 'Jobs Compute',
      credentials: { token },
    })
  ).json() as { id: string };
  await admin('POST', '/emulator/admin/faults', faultRules);
  const databricks = createDatabricksClient({ host: emulator.url, token });
  const jobs = ['Daily aggregation', 'Many small jobs', 'Skewed join'];
  const runs: Array<{ projectId: string; runId: string }> = [];
  for (const name of jobs) {
    const jobId = await jobIdByName(databricks, name);
    const imported = await call('POST', `/api/v1/workspaces/${workspace.id}/import`, { job_ids: [jobId] });
    const projectId = (imported.json() as { jobs: Array<{ projects: Array<{ id: string }> }> }).jobs[0]
      ?.projects[0]?.id;
    if (!projectId) throw new Error(`importing ${name} answered ${imported.status}`);
    for (let i = 0; i < 3; i++) runs.push({ projectId, runId: await databricks.runNow(jobId) });
  }
  const projects = [...new Set(runs.map((run) => run.projectId))];
  const storedRuns = async () => {
    const all: Array<{ external_run_id: string; pipeline_state: string; error: string | null }> = [];
    for (const projectId of projects)
      all.push(...(await call('GET', `/api/v1/projects/${projectId}/runs?limit=200`)).json().items);
    return all;
  };
  // the runs end on the emulator's clock; webhooks or the reconciliation bring each one in
  const stored =
    (await until(async () => {
      const all = await storedRuns();
      const done = runs.every(({ runId }) =>
        all.some((run) => run.external_run_id === runId && terminal.has(run.pipeline_state)),
      );
      return done ? all : undefined;
    }, 600_000)) ?? (await storedRuns());
  let handled = 0;
  for (const { runId } of runs) {
    const run = stored.find((item) => item.external_run_id === runId);
    if (run?.pipeline_state === 'DONE') handled += 1;
    else
      process.stdout.write(
        `databricks faults: run ${runId} ended ${run?.pipeline_state ?? 'unprocessed'} ${run?.error ?? ''}\n`,
      );
  }
  process.stdout.write(
    `databricks faults: stored ${stored.map((item) => `${item.external_run_id}:${item.pipeline_state}`).join(' ')}\n`,
  );
  for (const projectId of projects) await call('GET', `/api/v1/projects/${projectId}/recommendations`);
  await call('GET', `/api/v1/workspaces/${workspace.id}`);
  await call('GET', '/api/v1/workspaces');
  const { max, failures } = await probe.stop();
  const peak = peakRssMiB(server.process.pid);
  const applied = (await admin('GET', '/emulator/admin/faults')).faults.reduce(
    (sum, rule) => sum + rule.applied,
    0,
  );
  await server.stop();
  await emulator.stop();
  process.stdout.write(`databricks faults: ${applied} faults applied\n`);
  const row: Row = {
    attack,
    database: 'SQLite',
    expected,
    tried: runs.length,
    handled,
    lost: runs.length - handled,
    duplicated: Math.max(0, stored.length - runs.length),
    peakRssMiB: peak,
    maxHealthzMs: failures > 0 ? Number.POSITIVE_INFINITY : Math.round(max),
    seconds: Math.round((performance.now() - started) / 1000),
    load: Math.max(loadAtStart, loadNow()),
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
  // the secret after the attack: every file the server wrote, its whole log, every answer read above
  const places = new Map<string, Buffer | string>([['server log', server.output()], ...answers]);
  for (const file of filesBelow(env.SETPOINT_DATA_DIR as string)) places.set(file, readFileSync(file));
  const leaks = placesHolding(token, places);
  if (leaks.length > 0) process.stdout.write(`secrets: the workspace token is in ${leaks.join(', ')}\n`);
  const secrets: Row = {
    ...row,
    // the count of places is the row's `tried`: the attack's name stays the same from run to run (it keys the row)
    attack:
      'secrets: the workspace token searched for in the database, WAL, blobs, server log and API answers after the Databricks faults',
    expected: 'the token is in none of them',
    tried: places.size,
    handled: places.size - leaks.length,
    lost: 0,
    duplicated: 0,
  };
  process.stdout.write(`${JSON.stringify(secrets)}\n`);
  return { row, secrets };
}

/** One way an S3 read breaks, and what a run whose event log it hides must end as. */
interface S3FaultKind {
  name: string;
  bucket: string;
  /** Breaks the reads of one object key; `transient` faults heal, the others do not. */
  inject(proxy: S3FaultProxy, path: RegExp): void;
  transient: boolean;
  /** The GETs of the object the fault forces (its failed reads and the one that succeeds). */
  reads: number;
  /** The run's error must say this (a permanent fault's reason). */
  says?: string;
}

const s3Bucket = 'event-logs';
const s3DeniedBucket = 'denied-logs';
const s3FaultKinds: S3FaultKind[] = [
  // 4 SlowDowns outlast the S3 client's own 3 attempts: the job is retried too
  {
    name: '503 SlowDown',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.failRequests(path, 4),
    transient: true,
    reads: 5,
  },
  {
    name: '500 InternalError',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.answerError(path, 4, 500, 'InternalError'),
    transient: true,
    reads: 5,
  },
  {
    name: 'connection reset mid-body',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.cutDownloads(path, 2),
    transient: true,
    reads: 3,
  },
  // the transfer stops mid-body with the connection held open: only the S3 client's idle timeout ends it
  {
    name: 'stalled mid-body',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.stallDownloads(path, 1),
    transient: true,
    reads: 2,
  },
  {
    name: '5 s answers',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.delay(path, 1, 5000),
    transient: true,
    reads: 1,
  },
  {
    name: '403 AccessDenied on the bucket',
    bucket: s3DeniedBucket,
    inject: (proxy, path) => proxy.answerError(path, Number.POSITIVE_INFINITY, 403, 'AccessDenied'),
    transient: false,
    reads: 1,
    says: 'access denied',
  },
  {
    name: '404 NoSuchKey',
    bucket: s3Bucket,
    inject: (proxy, path) => proxy.answerError(path, Number.POSITIVE_INFINITY, 404, 'NoSuchKey'),
    transient: false,
    reads: 1,
    says: 'no such object',
  },
];

/**
 * Runs submitted with an `s3://` eventlog_uri whose objects sit in an S3 test server (s3rver) behind a
 * proxy that breaks their reads: 503 SlowDown and 500 InternalError beyond the S3 client's own retries,
 * a connection reset mid-body, a transfer stalled mid-body (ended by the client's 10 s idle timeout),
 * 5 s answers (each run's object recovers), and 403 AccessDenied on a whole bucket and 404 NoSuchKey on
 * some objects (never recovering). A transient fault's run must be DONE once; a permanent fault's run
 * FAILED after one read with an error naming the object and the reason, and no key in it.
 */
async function s3Faults(attack: string, expected: string, runsPerKind: number): Promise<Row> {
  const started = performance.now();
  const loadAtStart = loadNow();
  const s3 = await startS3TestServer([s3Bucket, s3DeniedBucket]);
  const proxy = await startS3FaultProxy(s3.endpoint);
  const writer = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
  const planned: Array<{ kind: S3FaultKind; uri: string; path: string }> = [];
  for (const [k, kind] of s3FaultKinds.entries()) {
    for (let i = 0; i < runsPerKind; i++) {
      const key = `runs/kind-${k}-${i}/eventlog`;
      await writer.putObject(kind.bucket, key, eventLog);
      const objectPath = `/${kind.bucket}/${key}`;
      kind.inject(proxy, new RegExp(`^${objectPath}$`));
      planned.push({ kind, uri: `s3://${kind.bucket}/${key}`, path: objectPath });
    }
  }
  writer.close();
  const env = deploymentEnv(undefined, {
    ...baseEnv,
    SETPOINT_S3_ENDPOINT: proxy.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
    SETPOINT_JOB_MAX_ATTEMPTS: '5',
    // above the 5 s answers, so only the stalled transfers time out
    SETPOINT_S3_IDLE_TIMEOUT_SECONDS: '10',
  });
  const { server, probe, client } = await probedServer(env);
  const project = (await client.call('POST', '/api/v1/projects', { name: 'S3 faults' })).json() as {
    id: string;
  };
  const submitted: Array<{ kind: S3FaultKind; uri: string; path: string; runId: string }> = [];
  for (const run of planned) {
    const response = await client.call('POST', `/api/v1/projects/${project.id}/runs`, {
      eventlog_uri: run.uri,
      cluster_report: JSON.parse(clusterReport.toString('utf8')),
      external_run_id: `s3-${submitted.length}`,
    });
    if (response.status === 202) submitted.push({ ...run, runId: response.json().id as string });
    else process.stdout.write(`s3 faults: ${run.uri} answered ${response.status}\n`);
  }
  type StoredRun = { id: string; pipeline_state: string; error: string | null };
  const storedRuns = async () =>
    (await client.call('GET', `/api/v1/projects/${project.id}/runs?limit=200`)).json().items as StoredRun[];
  const stored =
    (await until(async () => {
      const all = await storedRuns();
      return all.length >= submitted.length && all.every((run) => terminal.has(run.pipeline_state))
        ? all
        : undefined;
    }, 600_000)) ?? (await storedRuns());
  const { max, failures } = await probe.stop();
  const peak = peakRssMiB(server.process.pid);
  await server.stop();
  const gets = (objectPath: string) => proxy.seen.filter((line) => line === `GET ${objectPath}`).length;
  let handled = 0;
  for (const run of submitted) {
    const found = stored.find((item) => item.id === run.runId);
    const reads = gets(run.path);
    const error = found?.error ?? '';
    const asExpected = run.kind.transient
      ? found?.pipeline_state === 'DONE' && reads >= run.kind.reads
      : found?.pipeline_state === 'FAILED' &&
        error.includes(run.uri) &&
        error.includes(run.kind.says ?? '') &&
        !error.includes(s3.credentials.secretAccessKey) &&
        // one read: a refusal or a missing object is retried neither by the S3 client nor by the queue
        reads === run.kind.reads;
    if (asExpected) handled += 1;
    process.stdout.write(
      `s3 faults: ${run.kind.name} ${run.uri}: ${found?.pipeline_state ?? 'unprocessed'} after ${reads} GETs${error ? ` (${error})` : ''}${asExpected ? '' : ' UNEXPECTED'}\n`,
    );
  }
  process.stdout.write(`s3 faults: ${proxy.applied()} faults applied\n`);
  await proxy.close();
  await s3.close();
  const finished = stored.filter((run) => terminal.has(run.pipeline_state));
  const row: Row = {
    attack,
    database: 'SQLite',
    expected,
    tried: submitted.length,
    handled,
    lost: Math.max(0, submitted.length - finished.length),
    duplicated: Math.max(0, stored.length - submitted.length),
    peakRssMiB: peak,
    maxHealthzMs: failures > 0 ? Number.POSITIVE_INFINITY : Math.round(max),
    seconds: Math.round((performance.now() - started) / 1000),
    load: Math.max(loadAtStart, loadNow()),
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
    const { row, secrets } = await databricksFaults(
      databricksAttack,
      'every run DONE once (lost webhooks by reconciliation)',
    );
    rows.push(row, secrets);
  }
  const s3Attack = `S3 faults: eventlog_uri reads answered 503 SlowDown, 500 InternalError, reset or stalled mid-body, 5 s late (recovering); 403 AccessDenied on a bucket, 404 NoSuchKey (${3 * s3FaultKinds.length} runs)`;
  if (wanted(s3Attack)) {
    rows.push(
      await s3Faults(
        s3Attack,
        'transient: every run DONE once; 403/404: run FAILED after one attempt, error names the object',
        3,
      ),
    );
  }
  const backlogRuns = Number(process.env.SETPOINT_FAULTS_BACKLOG_RUNS ?? 3000);
  const backlogAttack = `backlog: ${backlogRuns} runs uploaded to one project at once, then processed`;
  if (wanted(backlogAttack)) {
    rows.push(
      await campaign(
        backlogAttack,
        'every run DONE once',
        // the row measures the backlog, not the per-key limiter (600 requests a minute by default)
        await sqliteDeployment({ ...baseEnv, SETPOINT_RATE_LIMIT_PER_MINUTE: '100000000' }),
        ({ client, projectId }) => sendAll(client, projectId, realLogs(backlogRuns)),
        { state: 'DONE' },
      ),
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
  await secondProbeClasses(rows, onBoth);
  writeReliabilitySection(rows);
}

/** Compressed with zstd where this Node.js has it (22.15+), gzip before: the server reads both. */
function compressed(log: Buffer): Upload {
  return 'zstdCompressSync' in zlib && typeof zlib.zstdCompressSync === 'function'
    ? { name: 'eventlog.zst', bytes: zlib.zstdCompressSync(log) }
    : { name: 'eventlog.gz', bytes: gzipSync(log) };
}

/**
 * The classes of the second outside probe (docs/reliability.md, "Second probe"): many-stage profiles,
 * SMTP destinations, handlers slower than the idle timeout, implausible run times.
 */
async function secondProbeClasses(
  rows: Row[],
  onBoth: Array<{ database: Row['database']; deploy: (extra: NodeJS.ProcessEnv) => Promise<Deployment> }>,
): Promise<void> {
  const manyStagesAttack =
    'hostile upload: 11 logs of 20,000 stages and 20,000 SQL executions (4 KB texts, ~1.6 MB each), kill -9, restart';
  for (const { database, deploy } of onBoth) {
    if (!wanted(manyStagesAttack, database)) continue;
    const manyStages = compressed(
      manyStageEventLog({ stages: 20_000, sqlExecutions: 20_000, textChars: 4_096 }),
    );
    rows.push(
      await campaign(
        manyStagesAttack,
        `every run DONE once; the restarted server recommends; peak RSS ≤ ${manyStagesRssBoundMiB} MiB`,
        await deploy(baseEnv),
        async (context) => {
          const { projectId } = context;
          const uploads = Array.from({ length: 11 }, (_, i) => ({
            name: `${i}-${manyStages.name}`,
            bytes: manyStages.bytes,
            withReport: true,
          }));
          const sent = await sendAll(context.client, projectId, uploads);
          await until(async () => {
            const states = await runStates(context.client, projectId);
            return states && states.length >= sent.accepted && states.every((state) => terminal.has(state))
              ? true
              : undefined;
          }, 600_000);
          // the crash loop came back after a restart, when the recommendation window read profiles whole
          await context.restart('SIGKILL');
          // the client of the restarted server
          const client = context.client;
          const recommended = await until(async () => {
            const latest = await client.call('POST', `/api/v1/projects/${projectId}/recommendations`, {});
            if (latest.status !== 202 && latest.status !== 200) return undefined;
            const id = latest.json().id as string;
            return until(async () => {
              const read = await client.call('GET', `/api/v1/projects/${projectId}/recommendations/${id}`);
              return read.status === 200 && read.json().state !== 'PENDING' ? read.json().state : undefined;
            }, 300_000);
          }, 120_000);
          process.stdout.write(
            `many stages: the restarted server's recommendation ${recommended ?? 'never came'}\n`,
          );
          return {
            tried: sent.tried + 1,
            accepted: sent.accepted,
            refusedAsExpected: recommended === 'SUCCESS' ? 1 : 0,
          };
        },
        { state: 'DONE', rssBoundMiB: manyStagesRssBoundMiB },
      ),
    );
  }

  const smtpAttack =
    'SMTP destinations: loopback, private, metadata, unspecified, encoded and untrusted-port hosts; a trusted host moved';
  for (const { database, deploy } of onBoth) {
    if (!wanted(smtpAttack, database)) continue;
    const trusted = await startSmtpListener();
    const moved = await startSmtpListener();
    const stranger = await startSmtpListener();
    const deployment = await deploy({
      ...baseEnv,
      SETPOINT_OUTBOUND_ALLOW_LIST: `127.0.0.1:${trusted.port}, 127.0.0.1:${moved.port}`,
      SETPOINT_ALERT_INTERVAL_SECONDS: '3600',
    });
    rows.push(
      await campaign(
        smtpAttack,
        '400 OUTBOUND_URL_REFUSED; no listener outside the allow-list reached; no password sent to a moved host',
        deployment,
        async ({ client }) => {
          const password = `smtp-${randomBytes(8).toString('hex')}`;
          const destination = (host: string, port: number) =>
            client.call('POST', '/api/v1/alerts/destinations', {
              kind: 'email',
              name: `mail via ${host}:${port}`,
              smtp_host: host,
              smtp_port: port,
              tls: 'none',
              from: 'setpoint@example.com',
              to: ['oncall@example.com'],
              username: 'setpoint',
              password,
            });
          const hostile: Array<[string, number]> = [
            ...['127.0.0.1', '::1', 'localhost', '169.254.169.254', '10.0.0.1', '0.0.0.0', '2130706433'].map(
              (host): [string, number] => [host, 25],
            ),
            ['127.0.0.1', stranger.port],
            ['localhost', stranger.port],
          ];
          let refused = 0;
          for (const [host, port] of hostile) {
            const answer = await destination(host, port);
            if (answer.status === 400 && answer.json().error?.code === 'OUTBOUND_URL_REFUSED') refused += 1;
            else process.stdout.write(`smtp: ${host}:${port} answered ${answer.status}\n`);
          }
          // a trusted destination moved to another trusted port: delivered there without the old password
          const created = await destination('127.0.0.1', trusted.port);
          const id = created.json().id as string;
          const patched = await client.call('PATCH', `/api/v1/alerts/destinations/${id}`, {
            smtp_port: moved.port,
          });
          const delivered = patched.status === 200 && (await deliverOnce(client, deployment, id)) === 'SENT';
          const movedClean = delivered && moved.connections() === 1 && moved.authLines().length === 0;
          if (!movedClean)
            process.stdout.write(
              `smtp: the moved destination answered ${patched.status}, ${moved.authLines().length} AUTH lines there\n`,
            );
          const untouched = stranger.connections() === 0 && trusted.authLines().length === 0;
          return {
            tried: hostile.length + 1,
            accepted: 0,
            refusedAsExpected: untouched ? refused + (movedClean ? 1 : 0) : 0,
          };
        },
      ),
    );
    await Promise.all([trusted.close(), moved.close(), stranger.close()]);
  }

  const slowHandlerAttack =
    'slow handlers: 20 workspace checks against a workspace answering 5 s late (idle timeout 1 s)';
  for (const { database, deploy } of onBoth) {
    if (!wanted(slowHandlerAttack, database)) continue;
    const throttled = createServer((request, response) => {
      request.resume();
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jobs: [], has_more: false, clusters: [], node_types: [] }));
      }, 5_000);
    });
    await new Promise<void>((resolve) => throttled.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(throttled.address() as AddressInfo).port}`;
    rows.push(
      await campaign(
        slowHandlerAttack,
        'every check answered with a JSON body, none dropped',
        await deploy({
          ...baseEnv,
          SETPOINT_IDLE_TIMEOUT_SECONDS: '1',
          SETPOINT_OUTBOUND_ALLOW_LIST: host,
        }),
        async ({ client, baseUrl: url }) => {
          const workspace = await client.call('POST', '/api/v1/workspaces', {
            name: 'throttled',
            cloud: 'aws',
            host: `http://${host}`,
            credentials: { token: 'dapi-throttled-0123' },
          });
          if (workspace.status !== 201)
            throw new Error(`the throttled workspace answered ${workspace.status}`);
          const checks = Array.from({ length: 20 }, async () => {
            try {
              const response = await fetch(`${url}/api/v1/workspaces/${workspace.json().id}/check`, {
                method: 'POST',
                headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
                body: '{}',
                signal: AbortSignal.timeout(120_000),
              });
              JSON.parse(await response.text());
              return true;
            } catch (error) {
              process.stdout.write(`slow handlers: a check got no answer (${String(error)})\n`);
              return false;
            }
          });
          const answered = (await Promise.all(checks)).filter(Boolean).length;
          return { tried: 20, accepted: 0, refusedAsExpected: answered };
        },
      ),
    );
    throttled.close();
  }

  for (const { database, deploy } of onBoth) {
    if (wanted(applyCrashAttack, database)) rows.push(await applyCrashFaults(deploy));
  }

  const timesAttack =
    'implausible run times: logs dated 2150, at epoch 0, ending before they start, an executor in 2150';
  for (const { database, deploy } of onBoth) {
    if (!wanted(timesAttack, database)) continue;
    const year2150 = Date.UTC(2150, 0, 1);
    const logs = [
      twoStageLogAt(year2150),
      twoStageLogAt(0),
      twoStageLogAt(1_700_000_000_000, (event) => {
        if (event.Event === 'SparkListenerApplicationEnd') event.Timestamp = 1_700_000_000_000 - 5;
      }),
      twoStageLogAt(1_700_000_000_000, (event) => {
        if (event.Event === 'SparkListenerExecutorAdded') event.Timestamp = year2150;
      }),
    ];
    rows.push(
      await campaign(
        timesAttack,
        'accepted, each run FAILED (times not plausible), none costed',
        await deploy(baseEnv),
        ({ client, projectId }) =>
          sendAll(
            client,
            projectId,
            logs.map((bytes, i) => ({ name: `clock-${i}`, bytes, withReport: true })),
          ),
        {
          state: 'FAILED',
          check: (run) => /times are not plausible/.test(run.error ?? '') && run.cost === null,
        },
      ),
    );
  }
}

const applyCrashAttack =
  'apply crash: kill -9 while jobs/update is answered late (4 applies: 2 written, 2 not), restart';

/**
 * Issue 40 finding 3 at campaign scale: each apply's server is killed while Databricks holds jobs/update's
 * answer back, after changing the job (written) or instead of changing it (not written), then started
 * again on the same database. Handled: the apply recorded once as the apply it was, the job on the
 * recommended cluster, no external change taken, auto-apply not paused. Lost: never recorded.
 * Duplicated: recorded more than once, or written more often than the one try (and one retry) allows.
 */
async function applyCrashFaults(deploy: (extra: NodeJS.ProcessEnv) => Promise<Deployment>): Promise<Row> {
  const started = performance.now();
  const loadAtStart = loadNow();
  const emulator = await startEmulator({
    nodeSpecs: catalogNodeSpecs,
    port: 0,
    seed: 31,
    clockSpeed: 3600,
    rateLimitScale: 0,
    cloud: 'aws',
  });
  const deployment = await deploy({
    ...baseEnv,
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
    SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
    // the killed process's job and intent are taken over once this runs out
    SETPOINT_JOB_LEASE_SECONDS: '3',
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '1',
  });
  const env = deployment.env;
  const key = await createKey(env);
  let server = await startApi(env, true);
  let probe = healthProbe(server.url);
  const probed: Array<{ max: number; failures: number }> = [];
  let peak = 0;
  let client = await apiClient(server.url, key);
  const databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
  const workspaceId = (
    await client.call('POST', '/api/v1/workspaces', {
      name: 'emulated',
      platform: 'databricks',
      cloud: 'aws',
      region: 'us-west-2',
      host: emulator.url,
      credentials: { token: emulator.token },
    })
  ).json().id as string;
  const jobNames = ['Skewed join', 'Daily aggregation', 'Join-heavy ETL', 'CPU-bound ML scoring'];
  let tried = 0;
  let handled = 0;
  let lost = 0;
  let duplicated = 0;
  try {
    for (const [i, jobName] of jobNames.entries()) {
      const jobId = await jobIdByName(databricks, jobName);
      const imported = await client.call('POST', `/api/v1/workspaces/${workspaceId}/import`, {
        job_ids: [jobId],
        settings: { autoApply: true },
      });
      const project = imported.json().jobs[0].projects[0] as { id: string; cluster_key: string };
      const ref = parseClusterRefKey(project.cluster_key);
      if (!ref) throw new Error(`the imported ${jobName} has no cluster`);
      const nodeTypeNow = async () =>
        findClusterSpec((await databricks.getJob(jobId)).settings, ref)?.node_type_id;
      const recommendationId = `rec_crash_${i}`;
      await storedRecommendation(deployment, project.id, recommendationId);
      const written = i % 2 === 0;
      // written: jobs/update changes the job, then its answer waits; not written: it waits, then fails
      const fault = emulator.context.faults.add({
        kind: 'http',
        match: 'POST /api/2.*/jobs/update',
        delayMs: 20_000,
        count: 1,
        ...(written ? { afterHandler: true } : { status: 503 }),
      });
      await client.call('POST', `/api/v1/projects/${project.id}/recommendations/${recommendationId}/apply`);
      await until(
        async () =>
          fault.applied === 1 && (!written || (await nodeTypeNow()) === recommendedNodeType)
            ? true
            : undefined,
        120_000,
      );
      peak = Math.max(peak, peakRssMiB(server.process.pid));
      probed.push(await probe.stop());
      const exited = new Promise((resolve) => server.process.once('exit', resolve));
      server.process.kill('SIGKILL');
      await exited;
      server = await startApi(env, true);
      probe = healthProbe(server.url);
      client = await apiClient(server.url, key);
      // settled before the next apply starts, so each fault counts this apply's writes alone
      const outcome = await settledApply(client, project.id, recommendationId, nodeTypeNow);
      const writes = fault.seen;
      const allowedWrites = written ? 1 : 2;
      if (!outcome) lost += 1;
      else if (outcome.recorded > 1 || writes > allowedWrites) duplicated += 1;
      else if (outcome.recorded === 1 && outcome.outsideChanges === 0 && !outcome.paused) handled += 1;
      process.stdout.write(
        `apply crash: ${recommendationId} (${written ? 'written' : 'not written'}) ${JSON.stringify({ ...outcome, writes })}\n`,
      );
      tried += 1;
    }
    peak = Math.max(peak, peakRssMiB(server.process.pid));
    probed.push(await probe.stop());
    const row: Row = {
      attack: applyCrashAttack,
      database: deployment.database,
      expected:
        'each apply recorded once, the job on the recommended cluster, no external change, not paused',
      tried,
      handled,
      lost,
      duplicated,
      peakRssMiB: peak,
      maxHealthzMs: probed.some((p) => p.failures > 0)
        ? Number.POSITIVE_INFINITY
        : Math.round(Math.max(...probed.map((p) => p.max))),
      seconds: Math.round((performance.now() - started) / 1000),
      load: Math.max(loadAtStart, loadNow()),
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await server.stop();
    await emulator.close();
    await deployment.drop();
  }
}

const recommendedNodeType = 'c5d.2xlarge';

/**
 * The apply once the restarted server's queued apply job has ended (its metrics count it): how often the
 * recommendation is in the history, outside changes taken, whether auto-apply paused; undefined when it was
 * never recorded with the job on the recommended cluster.
 */
async function settledApply(
  client: Client,
  projectId: string,
  recommendationId: string,
  nodeTypeNow: () => Promise<string | undefined>,
): Promise<{ recorded: number; outsideChanges: number; paused: boolean } | undefined> {
  await until(async () => {
    const metrics = (await client.call('GET', '/metrics')).text;
    const done = /setpoint_job_duration_seconds_count\{kind="project\.apply",outcome="done"\} (\d+)/.exec(
      metrics,
    );
    return Number(done?.[1] ?? 0) >= 1 ? true : undefined;
  }, 120_000);
  const answer = await client.call('GET', `/api/v1/projects/${projectId}/applied-configs`);
  if (answer.status !== 200) return undefined;
  const history = answer.json() as {
    items: Array<{ kind: string; recommendation_id: string | null }>;
    auto_apply_paused: boolean;
  };
  const recorded = history.items.filter((item) => item.recommendation_id === recommendationId).length;
  if (recorded === 0 || (await nodeTypeNow()) !== recommendedNodeType) return undefined;
  const outside = await client.call('GET', `/api/v1/audit?action=external_change&project_id=${projectId}`);
  return { recorded, outsideChanges: outside.json().items.length, paused: history.auto_apply_paused };
}

/** The deployment's store, open while `use` runs. */
async function withStore<T>(
  deployment: Deployment,
  use: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
): Promise<T> {
  const store = await openStore({
    dataDir: deployment.env.SETPOINT_DATA_DIR as string,
    databaseUrl: deployment.env.SETPOINT_DATABASE_URL,
  });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** A recommendation for the project as the pipeline stores one (the campaign needs no run history). */
function storedRecommendation(deployment: Deployment, projectId: string, id: string): Promise<void> {
  return withStore(deployment, (store) =>
    storeRecommendation(store.db, {
      projectId,
      id,
      configuration: { node_type_id: recommendedNodeType, num_workers: 3 },
      explanation: 'fewer, faster nodes',
      phase: 'OPTIMIZING',
      requestedBy: 'fault campaign',
    }),
  );
}

/** The server's bound on its own peak RSS with 11 many-stage uploads (two parse workers of 1 GiB heap each). */
const manyStagesRssBoundMiB = 2560;

/** Sends one notification to the destination now: a failed one written to the store, retried through the API. */
async function deliverOnce(client: Client, deployment: Deployment, destinationId: string): Promise<string> {
  const rule = await client.call('POST', '/api/v1/alerts/rules', {
    event: 'sla_missed',
    destination_id: destinationId,
  });
  if (rule.status !== 201) throw new Error(`the alert rule answered ${rule.status}`);
  const id = await withStore(deployment, (store) =>
    storeFailedNotification(store.db, rule.json().id, destinationId),
  );
  const retried = await client.call('POST', `/api/v1/notifications/${id}/retry`);
  return retried.status === 200 ? (retried.json().status as string) : `HTTP ${retried.status}`;
}

const campaignLoad = { start: loadNow() };
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
  cwd: repoRoot,
  encoding: 'utf8',
}).trim();

/** The campaign table's columns; each row names the commit and date it was measured on. */
const tableHeader =
  '| attack | database | expected | tried | handled | lost | duplicated | peak RSS (MiB) | max `/healthz` (ms) | load (1 min) | result | commit, date |';
/** The table before rows carried their commit: its rows take the section's commit and date. */
const headerWithoutCommit = tableHeader.slice(0, tableHeader.lastIndexOf(' commit, date |'));

/** The rows of the table in `text` by attack and database, each with its own commit and date. */
function previousRows(text: string): Map<string, string> {
  const lines = new Map<string, string>();
  const current = text.indexOf(`${tableHeader}\n`);
  const legacy = current === -1 ? text.indexOf(`${headerWithoutCommit}\n`) : -1;
  const tableStart = current === -1 ? legacy : current;
  if (tableStart === -1) return lines;
  const measured = `${/Commit: (\w+)\./.exec(text)?.[1] ?? 'unknown'}, ${/Date: ([\d-]+)\./.exec(text)?.[1] ?? 'unknown'}`;
  for (const line of text.slice(tableStart).split('\n').slice(2)) {
    if (!line.startsWith('| ')) break;
    lines.set(keyOf(line), legacy === -1 ? line : `${line} ${measured} |`);
  }
  return lines;
}

const keyOf = (line: string) => line.split(' | ').slice(0, 2).join(' | ');

function writeReliabilitySection(rows: Row[]): void {
  const green = (row: Row) =>
    row.handled === row.tried &&
    row.lost === 0 &&
    row.duplicated === 0 &&
    row.maxHealthzMs <= healthBoundMs &&
    row.peakRssMiB <= (row.rssBoundMiB ?? Number.POSITIVE_INFINITY);
  const docs = path.join(repoRoot, 'docs/reliability.md');
  let text = readFileSync(docs, 'utf8');
  // a partial run (SETPOINT_FAULTS_ONLY) replaces its own rows and keeps the others' last figures
  const lines = previousRows(text);
  const today = new Date().toISOString().slice(0, 10);
  for (const row of rows) {
    const line = `| ${row.attack} | ${row.database} | ${row.expected} | ${row.tried} | ${row.handled} | ${row.lost} | ${row.duplicated} | ${row.peakRssMiB} | ${Number.isFinite(row.maxHealthzMs) ? row.maxHealthzMs : 'failed'} | ${row.load} | ${green(row) ? 'green' : 'RED'} | ${commit}, ${today} |`;
    lines.set(keyOf(line), line);
  }
  const table = [
    tableHeader,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...lines.values(),
  ];
  const section = [
    '## Fault campaign',
    '',
    `Command: \`npm run bench:faults\`. ${machineLine()} Commit: ${commit}. Load average (1 min) at start ${campaignLoad.start}, at end ${loadNow()}; *load* is each class's.`,
    'This line is the last run, which may have been partial; each row names the commit and date it was measured on.',
    '',
    `Each class runs on a fresh \`setpoint serve\` (API + worker, upload cap ${uploadCapBytes / 2 ** 20} MiB, 10 s job lease).`,
    '*handled*: answered as expected (a refusal with 4xx, or an accepted run that reached the expected',
    'state); *lost*: accepted runs that never reached DONE or FAILED; *duplicated*: runs beyond the',
    "accepted uploads; *peak RSS*: the server process's VmHWM (the largest of its incarnations);",
    `*max \`/healthz\`*: the slowest answer of a probe every 100 ms during the class (goal ≤ ${healthBoundMs} ms).`,
    'The Databricks row runs the emulator as its own process (`setpoint emulator`), as a real workspace',
    "is not in Setpoint's process; its figures are the `setpoint serve` process's alone. The S3 row puts",
    'a fault proxy (`tests/support/s3-test-server.ts`) between `setpoint serve` and an S3 test server',
    '(s3rver); there *handled* also needs a 403/404 run to fail after one read of its object, with an',
    'error naming the object and holding no key. The PostgreSQL restart row runs only on a cluster',
    'named for it',
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
