import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import type { RunProfile } from 'setpoint/eventlog/index';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTime } from './support.js';

const execFileAsync = promisify(execFile);

interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: {
    event_type: string;
    workspace_id: string;
    run: { run_id: string };
    job: { job_id: string; name: string };
  };
}

/** A webhook receiver that resolves a waiter as soon as the wanted event type arrives. */
class HookListener {
  readonly received: ReceivedHook[] = [];
  private readonly waiters: Array<{ eventType: string; resolve: (hook: ReceivedHook) => void }> = [];
  readonly server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const hook = { headers: request.headers, body: JSON.parse(text) as ReceivedHook['body'] };
      this.received.push(hook);
      for (const waiter of this.waiters.filter((entry) => entry.eventType === hook.body.event_type))
        waiter.resolve(hook);
      response.writeHead(200).end('ok');
    });
  });

  waitFor(eventType: string): Promise<ReceivedHook> {
    const existing = this.received.find((hook) => hook.body.event_type === eventType);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => this.waiters.push({ eventType, resolve }));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/databricks-hook`;
  }
}

let emulator: RunningEmulator;
const listener = new HookListener();
const scratch = mkdtempSync(join(tmpdir(), 'setpoint-e2e-'));

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function advance(ms: number): Promise<void> {
  await api('POST', '/emulator/admin/clock', { advance_ms: ms });
}

/** Downloads a delivered DBFS folder file by file, in 1 MB `dbfs/read` windows. */
async function downloadDbfsFolder(folder: string, target: string): Promise<string[]> {
  mkdirSync(target, { recursive: true });
  const listing = (await api('GET', `/api/2.0/dbfs/list?path=${encodeURIComponent(folder)}`)).files as Array<{
    path: string;
    file_size: number;
  }>;
  const names: string[] = [];
  for (const file of listing) {
    const chunks: Buffer[] = [];
    let offset = 0;
    while (offset < file.file_size) {
      const read = await api(
        'GET',
        `/api/2.0/dbfs/read?path=${encodeURIComponent(file.path)}&offset=${offset}&length=1048576`,
      );
      const bytesRead = read.bytes_read as number;
      expect(bytesRead).toBeLessThanOrEqual(1_048_576);
      if (bytesRead === 0) break;
      chunks.push(Buffer.from(read.data as string, 'base64'));
      offset += bytesRead;
    }
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    writeFileSync(join(target, name), Buffer.concat(chunks));
    names.push(name);
  }
  return names;
}

async function analyze(path: string): Promise<RunProfile> {
  const { stdout } = await execFileAsync('node', ['bin/setpoint.js', 'analyze', path, '--json'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as RunProfile;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  emulator = await startEmulator({
    nodeSpecs: catalogNodeSpecs,
    port: 0,
    clockSpeed: 0,
    startTimeMs: startTime,
    rateLimitScale: 0,
  });
});

afterAll(async () => {
  await emulator.close();
  await new Promise((resolve) => listener.server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

describe('a job run end to end', () => {
  it('sends webhooks with Basic auth, emits cluster events and delivers an event log that analyze reads', async () => {
    const destination = await api('POST', '/api/2.0/notification-destinations', {
      display_name: 'setpoint',
      config: { generic_webhook: { url: listener.url, username: 'setpoint', password: 'hook-secret' } },
    });
    const hooks = [{ id: destination.id }];
    await api('POST', '/api/2.2/jobs/update', {
      job_id: 1001,
      new_settings: { webhook_notifications: { on_start: hooks, on_success: hooks, on_failure: hooks } },
    });

    const { run_id: runId } = await api('POST', '/api/2.2/jobs/run-now', { job_id: 1001 });
    const started = await listener.waitFor('jobs.on_start');
    expect(
      Buffer.from(String(started.headers.authorization).replace(/^Basic /, ''), 'base64').toString(),
    ).toBe('setpoint:hook-secret');
    expect(started.body).toMatchObject({
      event_type: 'jobs.on_start',
      run: { run_id: String(runId) },
      job: { job_id: '1001' },
    });

    const seen: string[] = [];
    for (let minute = 0; minute < 30 && !seen.includes('RUNNING'); minute += 1) {
      await advance(60_000);
      const polled = await api('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
      seen.push((polled.state as { life_cycle_state: string }).life_cycle_state);
      expect(polled.end_time).toBe(0);
    }
    expect(seen[0]).toBe('PENDING');
    expect(seen).toContain('RUNNING');

    await advance(12 * 3_600_000);
    const succeeded = await listener.waitFor('jobs.on_success');
    expect(succeeded.body.run.run_id).toBe(String(runId));
    expect(succeeded.headers.authorization).toBe(started.headers.authorization);
    const finished = await api('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(finished.state).toMatchObject({ life_cycle_state: 'TERMINATED', result_state: 'SUCCESS' });
    const task = (
      finished.tasks as Array<{
        cluster_instance: { cluster_id: string; spark_context_id: string };
        setup_duration: number;
      }>
    )[0]!;
    expect(task.setup_duration).toBeGreaterThan(60_000);
    const { cluster_id: clusterId, spark_context_id: contextId } = task.cluster_instance;

    const events = (await api('POST', '/api/2.1/clusters/events', { cluster_id: clusterId, order: 'ASC' }))
      .events as Array<{
      type: string;
      details: Record<string, unknown>;
    }>;
    expect(events.map((event) => event.type)).toEqual(['CREATING', 'RUNNING', 'TERMINATING']);
    expect(events[1]!.details).toMatchObject({ current_num_workers: 8 });

    const root = `/cluster-logs/${clusterId}/eventlog`;
    const driverFolders = (await api('GET', `/api/2.0/dbfs/list?path=${root}`)).files as Array<{
      path: string;
    }>;
    const logFolder = `${driverFolders[0]!.path}/${contextId}`;
    const names = await downloadDbfsFolder(logFolder, join(scratch, 'dbfs-log'));
    expect(names).toContain('eventlog');

    const profile = await analyze(join(scratch, 'dbfs-log'));
    expect(profile.source.layout).toBe('databricks');
    expect(profile.application.sparkContextId).toBe(contextId);
    expect(profile.platform).toMatchObject({
      kind: 'databricks',
      workerNodeType: 'i3.xlarge',
      driverNodeType: 'i3.xlarge',
      workers: 8,
      photon: false,
      clusterId,
    });
    expect(profile.executors.maxConcurrent).toBe(8);
    expect(profile.stages.length).toBe(4);
    expect(profile.sqlExecutions.map((execution) => execution.jobIds)).toEqual(
      profile.jobs.map((job) => [job.jobId]),
    );
    expect(profile.totals.failedTasks).toBe(0);
  });

  it('runs a Photon cluster after a whole-task update and delivers its log to a Volume through the Files API', async () => {
    const job = await api('GET', '/api/2.2/jobs/get?job_id=1008');
    const task = (
      (job.settings as Record<string, unknown>).tasks as Array<{ new_cluster: Record<string, unknown> }>
    )[0]!;
    const photonTask = {
      ...task,
      new_cluster: { ...task.new_cluster, runtime_engine: 'PHOTON', num_workers: 4 },
    };
    await api('POST', '/api/2.2/jobs/update', { job_id: 1008, new_settings: { tasks: [photonTask] } });
    const { run_id: runId } = await api('POST', '/api/2.2/jobs/run-now', { job_id: 1008 });
    await advance(12 * 3_600_000);
    const run = await api('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(run.state).toMatchObject({ result_state: 'SUCCESS' });
    const { cluster_id: clusterId, spark_context_id: contextId } = (
      run.tasks as Array<{ cluster_instance: Record<string, string> }>
    )[0]!.cluster_instance as { cluster_id: string; spark_context_id: string };
    const base = `/api/2.0/fs/directories/Volumes/main/ops/cluster_logs/${clusterId}/eventlog`;
    const driverFolder = ((await api('GET', base)).contents as Array<{ name: string }>)[0]!.name;
    const folderPath = `/Volumes/main/ops/cluster_logs/${clusterId}/eventlog/${driverFolder}/${contextId}`;
    const files = (await api('GET', `/api/2.0/fs/directories${folderPath}`)).contents as Array<{
      name: string;
      path: string;
    }>;
    const target = join(scratch, 'volume-log');
    mkdirSync(target, { recursive: true });
    for (const file of files) {
      const response = await fetch(`${emulator.url}/api/2.0/fs/files${file.path}`, {
        headers: { authorization: `Bearer ${emulator.token}` },
      });
      expect(response.status).toBe(200);
      writeFileSync(join(target, file.name), Buffer.from(await response.arrayBuffer()));
    }
    const profile = await analyze(target);
    expect(profile.platform).toMatchObject({
      workerNodeType: 'm6gd.xlarge',
      workers: 4,
      photon: true,
      clusterId,
    });
  });
});
