/**
 * Issue 40, finding 12: copying `setpoint.db` while Setpoint ran lost what was still in its write-ahead log
 * (runs, audit rows, applied configurations), no backup or restore was documented, and a database restored
 * without its `master.key` started with a newly minted key and answered 500 wherever a stored secret was
 * needed. Here, on a deployment whose newest writes are only in the WAL: `setpoint backup` copies it while
 * it runs, holds no key and no secret in plain text; `setpoint restore` refuses a missing or wrong master
 * key with one line and changes nothing, refuses to replace a database without --force and one a running
 * server has open in any case; the restored server reads the projects, runs, secrets and API keys back.
 * On PostgreSQL the documented path (pg_dump, pg_restore) is taken, and a server with another key refuses
 * to start on the restored database.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from '../service/support/fixture-runs.js';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const workspaceToken = 'dapi-backup-token-do-not-leak';
const smtpPassword = 'smtp-backup-password-do-not-leak';
const fresh = (name: string) => mkdtempSync(path.join(tmpdir(), `setpoint-${name}-`));

/** A Databricks workspace whose token is stored encrypted; answers its id. */
async function createWorkspace(h: Harness, name: string): Promise<string> {
  const workspace = await h.request('POST', '/api/v1/workspaces', {
    name,
    cloud: 'aws',
    region: 'us-east-1',
    host: 'https://dbc-1.cloud.databricks.com',
    plan_type: 'Premium',
    credentials: { token: workspaceToken },
  });
  expect(workspace.status).toBe(201);
  return workspace.json().id as string;
}

/** Writes what a deployment holds: a project with a processed run, a workspace and an alert destination with secrets. */
async function populate(h: Harness, name: string): Promise<{ projectId: string; workspaceId: string }> {
  const project = await h.request('POST', '/api/v1/projects', { name });
  expect(project.status).toBe(201);
  const projectId = project.json().id as string;
  await processedFixtureRun(h, projectId, `${name}-run-1`);
  const workspaceId = await createWorkspace(h, `${name} workspace`);
  const destination = await h.request('POST', '/api/v1/alerts/destinations', {
    kind: 'email',
    name: `${name} mail`,
    smtp_host: '127.0.0.1',
    smtp_port: 2525,
    tls: 'none',
    from: 'setpoint@example.com',
    to: ['oncall@example.com'],
    username: 'setpoint',
    password: smtpPassword,
  });
  expect(destination.status).toBe(201);
  return { projectId, workspaceId };
}

/** Every file under a directory, read whole. */
function filesUnder(directory: string): Array<{ file: string; bytes: Buffer }> {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => ({ file, bytes: readFileSync(file) }));
}

function projectNamesIn(databaseFile: string): string[] {
  const database = new SqliteDatabase(databaseFile);
  try {
    return (database.prepare('SELECT name FROM projects').all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
  } finally {
    database.close();
  }
}

/** One line on stderr, nothing on stdout, the given exit code. */
function expectRefused(
  result: { code: number | null; stdout: string; stderr: string },
  code: number,
  message: RegExp,
) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(/^setpoint: [^\n]+\n$/);
  expect(result.stderr.trim()).toMatch(message);
  expect(result.stdout).toBe('');
}

describe('setpoint backup and restore on SQLite', () => {
  const opened: Harness[] = [];
  afterAll(async () => {
    for (const h of opened) await h.close().catch(() => undefined);
  });

  it('backs up a running deployment with its WAL, and the restored server reads everything back', async () => {
    const live = await createHarness({ startWorkers: true, config: { outboundAllowList: '127.0.0.1' } });
    opened.push(live);
    const { projectId, workspaceId } = await populate(live, 'nightly orders');
    // from here on nothing reaches setpoint.db until a checkpoint: the newest writes live only in the WAL
    await sql`PRAGMA wal_autocheckpoint = 0`.execute(live.services.store.db);
    const late = await live.request('POST', '/api/v1/projects', { name: 'written last' });
    expect(late.status).toBe(201);
    expect(statSync(path.join(live.dataDir, 'setpoint.db-wal')).size).toBeGreaterThan(0);
    // what the issue saw: a copy of setpoint.db alone misses it
    const plainCopy = path.join(fresh('plain-copy'), 'setpoint.db');
    copyFileSync(path.join(live.dataDir, 'setpoint.db'), plainCopy);
    const plainNames = (() => {
      try {
        return projectNamesIn(plainCopy);
      } catch {
        return []; // not even the table made it into the main file
      }
    })();
    expect(plainNames).not.toContain('written last');

    const backupDir = path.join(fresh('backup'), 'nightly');
    const backup = await runCli(['backup', '--out', backupDir, '--data-dir', live.dataDir, '--json']);
    expect(backup.code, backup.stderr).toBe(0);
    const summary = JSON.parse(backup.stdout);
    const activeKey = readFileSync(path.join(live.dataDir, 'master.key'), 'utf8').split(':')[0] as string;
    expect(summary).toMatchObject({ files: ['setpoint.db'], secret_keys: [activeKey] });
    expect(summary.keep_apart.join('\n')).toContain(`master key "${activeKey}"`);
    expect(projectNamesIn(path.join(backupDir, 'setpoint.db')).sort()).toEqual([
      'nightly orders',
      'written last',
    ]);
    // no key file, and neither secret readable in any byte of the backup
    expect(readdirSync(backupDir).sort()).toEqual(['backup.json', 'setpoint.db']);
    const masterKeyBytes = readFileSync(path.join(live.dataDir, 'master.key'), 'utf8')
      .trim()
      .split(':')[1] as string;
    for (const { file, bytes } of filesUnder(backupDir)) {
      for (const secret of [workspaceToken, smtpPassword, masterKeyBytes])
        expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
      expect(statSync(file).mode & 0o077, file).toBe(0);
    }
    const refusedTarget = await runCli(['backup', '--out', backupDir, '--data-dir', live.dataDir]);
    expectRefused(refusedTarget, 2, /nightly is not empty: back up into a new directory$/);

    // a restore with no master key, or another key under the same id, is refused and changes nothing
    const target = fresh('restored');
    const restore = (...extra: string[]) =>
      runCli(['restore', '--from', backupDir, '--data-dir', target, ...extra]);
    expectRefused(
      await restore(),
      8,
      new RegExp(`encrypted with master key "${activeKey}", which .*master\\.key does not hold`),
    );
    expect(readdirSync(target)).toEqual([]);
    writeFileSync(path.join(target, 'master.key'), `${activeKey}:${randomBytes(32).toString('base64')}\n`, {
      mode: 0o600,
    });
    expectRefused(
      await restore(),
      8,
      new RegExp(
        `master key "${activeKey}" in .*master\\.key does not decrypt the secrets of workspace nightly orders workspace`,
      ),
    );
    expect(readdirSync(target)).toEqual(['master.key']);

    // with the keys kept apart put back, it restores
    for (const name of ['master.key', 'server-secret'])
      copyFileSync(path.join(live.dataDir, name), path.join(target, name));
    const restored = await restore();
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(
      /^Restored setpoint\.db into .* from the backup of \S+ \(Setpoint \S+\)\n$/,
    );
    expectRefused(await restore(), 4, /already holds a Setpoint database: stop Setpoint and pass --force/);

    const back = await createHarness({ dataDir: target, config: { outboundAllowList: '127.0.0.1' } });
    opened.push(back);
    expectRefused(
      await restore('--force'),
      4,
      /setpoint\.db is open in a running Setpoint \(serve or worker\): stop it/,
    );
    const projects = (await back.request('GET', '/api/v1/projects')).json();
    expect(projects.items.map((item: { name: string }) => item.name).sort()).toEqual([
      'nightly orders',
      'written last',
    ]);
    const runs = (await back.request('GET', `/api/v1/projects/${projectId}/runs`)).json();
    expect(runs.items).toEqual([
      expect.objectContaining({ external_run_id: 'nightly orders-run-1', pipeline_state: 'DONE' }),
    ]);
    expect(runs.items[0].cost).not.toBeNull();
    expect((await back.request('GET', '/api/v1/workspaces')).status).toBe(200);
    expect((await back.services.workspaces.credentials(workspaceId)).credentials).toEqual({
      token: workspaceToken,
    });
    const destinations = (await back.request('GET', '/api/v1/alerts/destinations')).json();
    expect(destinations.items).toEqual([expect.objectContaining({ name: 'nightly orders mail' })]);
    // the server secret came back too: the live deployment's access token is still good
    const oldToken = await back.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${live.token}` },
    });
    expect(oldToken.statusCode).toBe(200);
    await back.close();
    opened.pop();

    // --force replaces a stopped deployment's database and keeps the one it replaced
    const replacedAgain = await restore('--force');
    expect(replacedAgain.code, replacedAgain.stderr).toBe(0);
    const kept = /kept as (\S+)\n/.exec(replacedAgain.stdout)?.[1] ?? '';
    expect(existsSync(kept)).toBe(true);
    expect(projectNamesIn(kept).sort()).toEqual(['nightly orders', 'written last']);
  });

  it('refuses to start a server whose master key does not read the database’s secrets', async () => {
    const first = await createHarness({ config: { outboundAllowList: '127.0.0.1' } });
    await createWorkspace(first, 'keyed');
    await first.close();
    const keyId = readFileSync(path.join(first.dataDir, 'master.key'), 'utf8').split(':')[0] as string;
    // the key file lost: no new key is minted over the database
    rmSync(path.join(first.dataDir, 'master.key'));
    await expect(createHarness({ dataDir: first.dataDir })).rejects.toThrow(
      new RegExp(`encrypted with master key "${keyId}", which .*master\\.key does not hold`),
    );
    expect(existsSync(path.join(first.dataDir, 'master.key'))).toBe(false);
    await expect(
      createHarness({
        dataDir: first.dataDir,
        config: { masterKey: `${keyId}:${randomBytes(32).toString('base64')}` },
      }),
    ).rejects.toThrow(
      `master key "${keyId}" in SETPOINT_MASTER_KEY does not decrypt the secrets of workspace keyed`,
    );
  });
});

describeFull('setpoint backup and restore on PostgreSQL', 'PostgreSQL', () => {
  const databases: TestPostgresDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it('points backup and restore to pg_dump, and a restored database starts only with its master key', async () => {
    const source = await createTestPostgresDatabase();
    const target = await createTestPostgresDatabase();
    databases.push(source, target);
    const live = await createHarness({
      databaseUrl: source.url,
      startWorkers: true,
      config: { outboundAllowList: '127.0.0.1' },
    });
    let ids: { projectId: string; workspaceId: string };
    try {
      ids = await populate(live, 'pg orders');
    } finally {
      await live.close();
    }
    const env = { SETPOINT_DATABASE_URL: source.url };
    const password = new URL(source.url).password;
    for (const args of [
      ['backup', '--out', path.join(fresh('pg-backup'), 'out'), '--data-dir', live.dataDir],
      ['restore', '--from', live.dataDir, '--data-dir', live.dataDir],
    ]) {
      const result = await runCli(args, { env });
      expectRefused(result, 2, args[0] === 'backup' ? /back it up with pg_dump/ : /pg_restore/);
      expect(result.stderr).not.toContain(`:${password}@`);
    }

    // the documented path: pg_dump while it could run, pg_restore into an empty database
    const dump = path.join(fresh('pg-dump'), 'setpoint.dump');
    const dumped = spawnSync('pg_dump', ['--format=custom', '--file', dump, '--dbname', source.url], {
      encoding: 'utf8',
    });
    expect(dumped.status, dumped.stderr).toBe(0);
    expect(readFileSync(dump).includes(workspaceToken)).toBe(false);
    const restored = spawnSync('pg_restore', ['--no-owner', '--dbname', target.url, dump], {
      encoding: 'utf8',
    });
    expect(restored.status, restored.stderr).toBe(0);

    const keyId = readFileSync(path.join(live.dataDir, 'master.key'), 'utf8').split(':')[0] as string;
    await expect(createHarness({ databaseUrl: target.url })).rejects.toThrow(
      new RegExp(`encrypted with master key "${keyId}", which .*master\\.key does not hold`),
    );
    const back = await createHarness({
      databaseUrl: target.url,
      config: {
        masterKey: readFileSync(path.join(live.dataDir, 'master.key'), 'utf8').trim(),
        serverSecret: readFileSync(path.join(live.dataDir, 'server-secret'), 'utf8').trim(),
      },
    });
    try {
      const runs = (await back.request('GET', `/api/v1/projects/${ids.projectId}/runs`)).json();
      expect(runs.items).toEqual([
        expect.objectContaining({ external_run_id: 'pg orders-run-1', pipeline_state: 'DONE' }),
      ]);
      expect((await back.services.workspaces.credentials(ids.workspaceId)).credentials).toEqual({
        token: workspaceToken,
      });
      const oldToken = await back.app.inject({
        method: 'GET',
        url: '/api/v1/projects',
        headers: { authorization: `Bearer ${live.token}` },
      });
      expect(oldToken.statusCode).toBe(200);
    } finally {
      await back.close();
    }
  });
});
