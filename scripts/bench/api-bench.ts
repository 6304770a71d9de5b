/**
 * `npm run bench:api`: requests/s and p99 latency of the project list and of run ingestion on SQLite
 * and PostgreSQL, with 10,000 projects and 300,000 runs seeded. Loopback only; each load phase is
 * bounded by time. Writes the `## Service API` section of docs/benchmarks.md.
 *
 * PostgreSQL is used when SETPOINT_BENCH_PG_URL (an admin URL whose user may CREATE DATABASE) or the
 * test default postgres://setpoint:setpoint@127.0.0.1:5432/postgres answers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { defaultProjectSettings } from '@setpoint/api-contract';
import autocannon from 'autocannon';
import pg from 'pg';
import { composeServices } from 'setpoint/composition/compose-services';
import { configSchema } from 'setpoint/config/schema';
import { createLogger } from 'setpoint/logging/logger';
import { runRow } from '../../tests/support/run-rows.js';
import { spawnSetpoint } from '../../tests/support/spawn-server.js';

const projectCount = Number(process.env.SETPOINT_BENCH_PROJECTS ?? 10_000);
const runsPerProject = Number(process.env.SETPOINT_BENCH_RUNS_PER_PROJECT ?? 30);
const durationSeconds = Number(process.env.SETPOINT_BENCH_SECONDS ?? 10);
const connections = 10;
const eventLog = readFileSync(path.resolve('tests/fixtures/service/databricks-aws-eventlog'));

interface Measurement {
  database: string;
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
}

async function seed(
  env: NodeJS.ProcessEnv,
): Promise<{ keyId: string; secret: string; projectIds: string[]; seconds: number }> {
  const started = performance.now();
  const config = configSchema.parse({
    dataDir: env.SETPOINT_DATA_DIR,
    databaseUrl: env.SETPOINT_DATABASE_URL,
    masterKey: env.SETPOINT_MASTER_KEY,
    serverSecret: env.SETPOINT_SERVER_SECRET,
  });
  const services = await composeServices({ config, logger: createLogger('silent') });
  const db = services.store.db;
  const settings = JSON.stringify(defaultProjectSettings());
  const now = Date.now();
  const projectIds = Array.from({ length: projectCount }, (_, i) => `prj_bench${String(i).padStart(6, '0')}`);
  for (let start = 0; start < projectCount; start += 1000) {
    await db
      .insertInto('projects')
      .values(
        projectIds.slice(start, start + 1000).map((id, offset) => ({
          id,
          name: `bench-job-${start + offset}`,
          description: null,
          settings,
          phase: 'OPTIMIZING',
          created_at: now - (projectCount - start - offset) * 1000,
          updated_at: now,
        })),
      )
      .execute();
  }
  const cost = JSON.stringify({ currency: 'USD', totalUsd: 4.2, lines: [] });
  const batch = 1000;
  const totalRuns = projectCount * runsPerProject;
  for (let start = 0; start < totalRuns; start += batch) {
    const rows = Array.from({ length: Math.min(batch, totalRuns - start) }, (_, offset) => {
      const n = start + offset;
      const projectId = projectIds[n % projectCount] ?? '';
      return runRow({
        id: `run_bench${String(n).padStart(8, '0')}`,
        project_id: projectId,
        external_run_id: `ext-${n}`,
        pipeline_state: 'DONE',
        status: 'SUCCESS',
        started_at: now - n * 60_000,
        ended_at: now - n * 60_000 + 600_000,
        eventlog_bytes: eventLog.length,
        cost,
        input_bytes: 1_000_000,
        created_at: now - n * 1000,
        updated_at: now,
      });
    });
    await db.insertInto('runs').values(rows).execute();
  }
  const key = await services.apiKeys.create('bench', 'bench');
  await services.close();
  return { keyId: key.id, secret: key.secret, projectIds, seconds: (performance.now() - started) / 1000 };
}

function multipart(externalRunId: string): { body: Buffer; contentType: string } {
  const boundary = `----setpointbench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="external_run_id"\r\n\r\n${externalRunId}\r\n`,
    ),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="eventlog"; filename="eventlog"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    eventLog,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function measure(database: string, env: NodeJS.ProcessEnv): Promise<Measurement[]> {
  process.stdout.write(
    `${database}: seeding ${projectCount} projects and ${projectCount * runsPerProject} runs…\n`,
  );
  const seeded = await seed(env);
  process.stdout.write(`${database}: seeded in ${seeded.seconds.toFixed(1)} s\n`);
  const server = await spawnSetpoint(['serve', '--no-worker'], /listening on (http:\/\/\S+)/, env);
  try {
    const tokenResponse = await fetch(`${server.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key_id: seeded.keyId, api_key_secret: seeded.secret }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const authorization = `Bearer ${token}`;
    const results: Measurement[] = [];
    const scenarios: Array<{ name: string; options: Parameters<typeof autocannon>[0] }> = [
      {
        name: 'GET /api/v1/projects (first page of 50, newest first)',
        options: { url: `${server.url}/api/v1/projects?limit=50`, headers: { authorization } },
      },
      {
        name: 'GET /api/v1/projects?q=job-42&sort=name (filtered)',
        options: {
          url: `${server.url}/api/v1/projects?q=job-42&sort=name&limit=50`,
          headers: { authorization },
        },
      },
      {
        name: `POST /api/v1/projects/:id/runs (multipart, ${eventLog.length}-byte event log)`,
        options: (() => {
          let counter = 0;
          return {
            url: server.url,
            requests: [
              {
                method: 'POST',
                setupRequest: (request) => {
                  counter += 1;
                  const { body, contentType } = multipart(`bench-upload-${counter}`);
                  const projectId = seeded.projectIds[counter % seeded.projectIds.length] ?? '';
                  return {
                    ...request,
                    path: `/api/v1/projects/${projectId}/runs`,
                    headers: { authorization, 'content-type': contentType },
                    body,
                  };
                },
              },
            ],
          };
        })(),
      },
    ];
    for (const scenario of scenarios) {
      // Unmeasured warm-up so the JIT and the database caches settle first.
      await autocannon({ connections, duration: 2, ...scenario.options });
      const result = await autocannon({ connections, duration: durationSeconds, ...scenario.options });
      const measurement: Measurement = {
        database,
        scenario: scenario.name,
        requestsPerSecond: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        requests: result.requests.total,
        failures: result.errors + result.non2xx,
      };
      process.stdout.write(`${JSON.stringify(measurement)}\n`);
      results.push(measurement);
    }
    return results;
  } finally {
    await server.stop();
  }
}

function baseEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    SETPOINT_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'setpoint-bench-')),
    SETPOINT_MASTER_KEY: `bench:${randomBytes(32).toString('base64')}`,
    SETPOINT_SERVER_SECRET: randomBytes(32).toString('base64'),
    SETPOINT_PORT: '0',
    SETPOINT_LOG_LEVEL: 'warn',
    SETPOINT_RATE_LIMIT_PER_MINUTE: '100000000',
    ...extra,
  };
}

async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const adminUrl =
    process.env.SETPOINT_BENCH_PG_URL ?? 'postgres://setpoint:setpoint@127.0.0.1:5432/postgres';
  const name = `setpoint_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function report(results: Measurement[], command: string): string {
  const rows = results.map(
    (r) =>
      `| ${r.database} | ${r.scenario} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.requests} | ${r.failures} |`,
  );
  const goalMet = results
    .filter((r) => r.scenario.startsWith('GET /api/v1/projects ('))
    .every((r) => r.p99Ms < 100);
  const listP99 = results
    .filter((r) => r.scenario.startsWith('GET /api/v1/projects ('))
    .map((r) => `${r.database} ${r.p99Ms.toFixed(1)} ms`);
  return [
    '## Service API',
    '',
    `Command: \`${command}\` — date ${new Date().toISOString().slice(0, 10)}, machine ${cpus().length} cores / ${Math.round(totalmem() / 1024 ** 3)} GiB,`,
    `Node ${process.version}; 1-minute load average ${loadavg()[0]?.toFixed(1)} at the end (the machine is shared with other work).`,
    `\`setpoint serve --no-worker\` in its own process on 127.0.0.1, autocannon with ${connections} connections`,
    `for ${durationSeconds} s per row (after a 2 s warm-up), after seeding ${projectCount.toLocaleString('en-US')} projects and ${(projectCount * runsPerProject).toLocaleString('en-US')} runs.`,
    'Ingestion rows stream the event log to the blob store, insert the run and queue its parse job (workers off).',
    '',
    '| database | scenario | requests/s | p50 ms | p99 ms | requests | failures |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Goal: project list p99 < 100 ms on both databases — measured ${listP99.join(', ')}.${goalMet ? ' Met.' : ' Not met in this run; the load average above says how much of the 2 cores the server actually had.'}`,
    '',
    'Each list row carries its project summary (last run, runtime vs SLA, cost per run, savings, insights),',
    "computed from all of the project's runs. The server remembers each summary until the project, its run",
    'count or its latest run update change (one index-only query per page checks that), so a page of 50 does',
    'not re-read 1,500 runs. The name search is a scan (`lower(name) like`) on both databases; it is not part',
    'of the goal, and a trigram index would need an extension not every PostgreSQL offers.',
    '',
  ].join('\n');
}

function writeSection(section: string): void {
  const file = path.resolve('docs/benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('## Service API');
  if (start < 0) {
    writeFileSync(file, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf('\n## ', start + 1);
  writeFileSync(file, `${text.slice(0, start)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`);
}

const results = await measure('SQLite', baseEnv({}));
const database = await postgresDatabase();
if (database) {
  try {
    results.push(...(await measure('PostgreSQL', baseEnv({ SETPOINT_DATABASE_URL: database.url }))));
  } finally {
    await database.drop();
  }
} else {
  process.stdout.write('PostgreSQL not reachable; measured SQLite only\n');
}
writeSection(report(results, 'npm run bench:api'));
process.stdout.write('wrote docs/benchmarks.md ## Service API\n');
