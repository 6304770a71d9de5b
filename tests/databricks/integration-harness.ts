import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server/build-emulator.js';
import { createDatabricksClient } from '../../src/platforms/databricks/client.js';
import { type RunningServer, startServer } from '../../src/server/start-server.js';

export interface Harness {
  emulator: RunningEmulator;
  server: RunningServer;
  databricks: ReturnType<typeof createDatabricksClient>;
  workspaceId: string;
  close(): Promise<void>;
}

/** Polls `probe` until it returns a value, for at most `timeoutMs`: waiting on a condition, not a clock. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

/** A Setpoint server (SQLite, workers in process) connected to an emulated Databricks workspace. */
export async function startHarness(
  options: { seed?: number; cloud?: 'aws' | 'azure' } = {},
): Promise<Harness> {
  const emulator = await startEmulator({
    port: 0,
    seed: options.seed ?? 7,
    clockSpeed: 3600,
    rateLimitScale: 0,
  });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-int-'));
  const config = loadConfig(
    { dataDir, port: 0 },
    {
      SETPOINT_LOG_LEVEL: 'warn',
      SETPOINT_LOG_COMPLETENESS_POLL_MS: '50',
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
      SETPOINT_JOB_MAX_ATTEMPTS: '12',
      SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '8',
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
    },
  );
  const server = await startServer(config);
  const workspace = await server.services.workspaces.create(
    {
      name: 'emulated',
      platform: 'databricks',
      cloud: options.cloud ?? 'aws',
      region: options.cloud === 'azure' ? 'eastus' : 'us-west-2',
      host: emulator.url,
      planType: 'Premium',
      computeType: 'Jobs Compute',
      credentials: { token: emulator.token },
    },
    'test',
  );
  const databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
  return {
    emulator,
    server,
    databricks,
    workspaceId: workspace.id,
    async close() {
      await server.stop();
      await emulator.close();
    },
  };
}

export async function jobIdByName(client: Harness['databricks'], name: string): Promise<string> {
  for await (const job of client.listJobs()) if (job.settings.name === name) return job.job_id;
  throw new Error(`no job named ${name}`);
}
