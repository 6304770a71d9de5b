/**
 * `npm run bench:scaleout`: ingestion throughput and end-to-end latency on PostgreSQL with 1 and then
 * 2 `setpoint worker` processes. Each configuration gets a fresh database, one `setpoint serve
 * --no-worker` and its workers on 127.0.0.1; the same runs (a real Databricks event log with its
 * cluster report, spread over several projects) are uploaded through the API, and each run is timed
 * from the start of its upload until the database shows it DONE (parse, cost, model update and
 * recommendation). Waits are bounded. Writes the `## Scale-out on PostgreSQL` section of
 * docs/benchmarks.md.
 *
 * Needs SETPOINT_BENCH_PG_URL (an admin URL whose user may CREATE DATABASE) or the test default
 * postgres://setpoint:setpoint@127.0.0.1:5432/postgres. SETPOINT_BENCH_RUNS (default 500),
 * SETPOINT_BENCH_PROJECTS (default 50) and SETPOINT_BENCH_UPLOADS_IN_FLIGHT (default 4) size the load.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { quantileOfSorted } from '@setpoint/foundation/statistics';
import pg from 'pg';
import {
  apiClient,
  createKey,
  deploymentEnv,
  startApi,
  startWorker,
} from '../../tests/service/support/process-stack.js';
import type { SpawnedServer } from '../../tests/support/spawn-server.js';
import { machineLine, repoRoot, writeBenchmarkSection } from './docs-section.js';

const adminUrl = process.env.SETPOINT_BENCH_PG_URL ?? 'postgres://setpoint:setpoint@127.0.0.1:5432/postgres';
const runCount = Number(process.env.SETPOINT_BENCH_RUNS ?? 500);
const projectCount = Number(process.env.SETPOINT_BENCH_PROJECTS ?? 50);
const uploadsInFlight = Number(process.env.SETPOINT_BENCH_UPLOADS_IN_FLIGHT ?? 4);
const workerCounts = (process.env.SETPOINT_BENCH_WORKERS ?? '1,2').split(',').map(Number);
const drainTimeoutMs = 45 * 60_000;
const fixtures = path.join(repoRoot, 'tests/fixtures/service');
const eventLog = readFileSync(path.join(fixtures, 'databricks-aws-eventlog'));
const clusterReport = readFileSync(path.join(fixtures, 'cluster-report.json'));

interface Measurement {
  workers: number;
  runs: number;
  done: number;
  failed: number;
  uploadSeconds: number;
  wallSeconds: number;
  runsPerMinute: number;
  p50Seconds: number;
  p95Seconds: number;
  maxSeconds: number;
  loadAverage: number;
}

async function asAdmin<T extends pg.QueryResultRow>(sql: string, url = adminUrl): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<T>(sql);
  } finally {
    await client.end();
  }
}

async function measure(workers: number): Promise<Measurement> {
  const name = `setpoint_scale_${randomBytes(5).toString('hex')}`;
  await asAdmin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const env = deploymentEnv(url.toString(), {
    SETPOINT_LOG_LEVEL: 'warn',
    SETPOINT_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const processes: SpawnedServer[] = [];
  const database = new pg.Client({ connectionString: url.toString() });
  try {
    const key = await createKey(env);
    const api = await startApi(env, false);
    processes.push(api);
    for (let index = 0; index < workers; index++) processes.push(await startWorker(env));
    await database.connect();
    const client = await apiClient(api.url, key);
    const projectIds: string[] = [];
    for (let index = 0; index < projectCount; index++) {
      const response = await client.call('POST', '/api/v1/projects', { name: `scale-job-${index}` });
      if (response.status !== 201) throw new Error(`project create answered ${response.status}`);
      projectIds.push(response.json().id as string);
    }
    // Upload start per run id, on this machine's clock (the one the database's timestamps come from).
    const startedAt = new Map<string, number>();
    const firstUpload = Date.now();
    let next = 0;
    const uploader = async () => {
      for (let index = next++; index < runCount; index = next++) {
        const form = new FormData();
        form.append('eventlog', new Blob([eventLog]), `eventlog-${index}`);
        form.append('cluster_report', new Blob([clusterReport]), 'cluster_report.json');
        form.append('external_run_id', `scale-${index}`);
        const began = Date.now();
        const projectId = projectIds[index % projectIds.length] as string;
        const response = await client.call('POST', `/api/v1/projects/${projectId}/runs`, form);
        if (response.status !== 202) throw new Error(`upload ${index} answered ${response.status}`);
        startedAt.set(response.json().id as string, began);
      }
    };
    await Promise.all(Array.from({ length: uploadsInFlight }, uploader));
    const uploadSeconds = (Date.now() - firstUpload) / 1000;
    process.stdout.write(`${workers} worker(s): ${runCount} uploads in ${uploadSeconds.toFixed(1)} s\n`);
    const deadline = Date.now() + drainTimeoutMs;
    let finished: Array<{ id: string; pipeline_state: string; updated_at: string }> = [];
    for (;;) {
      finished = (
        await database.query<{ id: string; pipeline_state: string; updated_at: string }>(
          "select id, pipeline_state, updated_at from runs where pipeline_state in ('DONE', 'FAILED')",
        )
      ).rows;
      if (finished.length >= runCount || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const latencies = finished
      .filter((run) => run.pipeline_state === 'DONE' && startedAt.has(run.id))
      .map((run) => (Number(run.updated_at) - (startedAt.get(run.id) as number)) / 1000)
      .sort((a, b) => a - b);
    const lastDone = Math.max(...finished.map((run) => Number(run.updated_at)));
    const wallSeconds = (lastDone - firstUpload) / 1000;
    const measurement: Measurement = {
      workers,
      runs: runCount,
      done: latencies.length,
      failed: finished.filter((run) => run.pipeline_state === 'FAILED').length,
      uploadSeconds,
      wallSeconds,
      runsPerMinute: (latencies.length / wallSeconds) * 60,
      p50Seconds: quantileOfSorted(latencies, 0.5),
      p95Seconds: quantileOfSorted(latencies, 0.95),
      maxSeconds: latencies.at(-1) ?? Number.NaN,
      loadAverage: loadavg()[0] ?? Number.NaN,
    };
    process.stdout.write(`${JSON.stringify(measurement)}\n`);
    return measurement;
  } finally {
    await database.end().catch(() => undefined);
    for (const spawned of processes.reverse()) await spawned.stop();
    await asAdmin(`drop database if exists ${name} with (force)`);
  }
}

function report(results: Measurement[]): string {
  const [one, two] = results;
  const speedup = one && two ? two.runsPerMinute / one.runsPerMinute : Number.NaN;
  return [
    '## Scale-out on PostgreSQL',
    '',
    `Command: \`npm run bench:scaleout\` (SETPOINT_BENCH_RUNS=${runCount}, ${projectCount} projects, ${uploadsInFlight} uploads in flight).`,
    `${machineLine()} PostgreSQL 15 on the same machine; the API, the workers, PostgreSQL and this`,
    'script share its 2 cores, and so does other work (the 1-minute load average at the end of each row is shown).',
    'Each row: a fresh database, one `setpoint serve --no-worker`, N `setpoint worker` processes (concurrency 2',
    `each); ${runCount} runs of a real Databricks event log (${(eventLog.length / 1024).toFixed(0)} KiB) with its cluster report uploaded`,
    'through the API, each timed from the start of its upload until the database shows it DONE (parse, cost,',
    'model update, recommendation). Throughput counts DONE runs from the first upload to the last DONE.',
    '',
    '| workers | runs | DONE | FAILED | upload s | wall s | runs/min | p50 s | p95 s | max s | load avg |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.workers} | ${r.runs} | ${r.done} | ${r.failed} | ${r.uploadSeconds.toFixed(1)} | ${r.wallSeconds.toFixed(1)} | ${r.runsPerMinute.toFixed(1)} | ${r.p50Seconds.toFixed(1)} | ${r.p95Seconds.toFixed(1)} | ${r.maxSeconds.toFixed(1)} | ${r.loadAverage.toFixed(1)} |`,
    ),
    '',
    `2 workers against 1: ${Number.isFinite(speedup) ? `${speedup.toFixed(2)}× the throughput` : 'not measured'}.`,
    '',
  ].join('\n');
}

const results: Measurement[] = [];
for (const workers of workerCounts) results.push(await measure(workers));
const section = report(results);
process.stdout.write(section);
if (!process.env.SETPOINT_BENCH_NO_DOCS) writeBenchmarkSection('## Scale-out on PostgreSQL', section);
