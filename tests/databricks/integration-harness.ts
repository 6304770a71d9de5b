import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from '@setpoint/databricks-emulator/server/build-emulator';
import type { S3Credentials } from '@setpoint/foundation/s3';
import { loadConfig } from 'setpoint/config/load-config';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { jobIdByName } from '../support/job-by-name.js';
import { pollUntil } from '../support/poll-until.js';
import { storeRecommendation } from '../support/stored-recommendation.js';

export interface Harness {
  emulator: RunningEmulator;
  server: RunningServer;
  databricks: ReturnType<typeof createDatabricksClient>;
  workspaceId: string;
  close(): Promise<void>;
}

/** Polls `probe` until it returns a value, for at most `timeoutMs`: waiting on a condition, not a clock. */
export function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return pollUntil(probe, what, { timeoutMs, retryErrors: true });
}

/** Cluster logs delivered to S3: the emulator writes to one endpoint, Setpoint reads from another (or the same). */
export interface HarnessS3Options {
  /** The workspace's log destination, `s3://bucket/prefix`. */
  logDestination: string;
  deliveryEndpoint: string;
  /** Where Setpoint reads (e.g. through a fault proxy); defaults to `deliveryEndpoint`. */
  readEndpoint?: string;
  credentials: S3Credentials;
}

/** A Setpoint server (SQLite, workers in process) connected to an emulated Databricks workspace. */
export async function startHarness(
  options: {
    seed?: number;
    cloud?: 'aws' | 'azure';
    s3?: HarnessS3Options;
    /** Setpoint settings by environment variable, over the harness defaults. */
    env?: Record<string, string>;
    /** Emulator settings over the harness defaults (system tables, statements, OAuth). */
    emulator?: EmulatorOptions;
    /** The workspace's sign-in instead of the emulator's PAT (given the emulator's URL). */
    auth?: (emulatorUrl: string) => Record<string, string>;
  } = {},
): Promise<Harness> {
  const emulator = await startEmulator({
    nodeSpecs: catalogNodeSpecs,
    port: 0,
    seed: options.seed ?? 7,
    clockSpeed: 3600,
    rateLimitScale: 0,
    cloud: options.cloud ?? 'aws',
    ...(options.s3 && {
      s3LogDelivery: { endpoint: options.s3.deliveryEndpoint, credentials: options.s3.credentials },
    }),
    ...options.emulator,
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
      // the emulated clock runs 3600× faster: its runs are dated days past the real one
      SETPOINT_RUN_CLOCK_TOLERANCE_HOURS: '8760',
      // the emulator's clock runs 3600× faster: a day of it passes in 24 s
      SETPOINT_RECONCILE_LOOKBACK_HOURS: '168',
      // The emulator (and any S3 test server) listen on loopback.
      SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
      ...options.env,
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
      credentials: {
        ...(options.auth ? options.auth(emulator.url) : { token: emulator.token }),
        ...(options.s3 && {
          aws_access_key_id: options.s3.credentials.accessKeyId,
          aws_secret_access_key: options.s3.credentials.secretAccessKey,
          s3_endpoint: options.s3.readEndpoint ?? options.s3.deliveryEndpoint,
        }),
      },
    },
    'test',
  );
  if (options.s3)
    await databricksIntegrationOf(server.services).store.saveWorkspaceLink(workspace.id, {
      logDestination: options.s3.logDestination,
    });
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

export { jobIdByName };

/**
 * A new job in the emulator: a copy of a shipped one (the same workload) under another name, with its
 * settings changed by `edit` first (a policy, a pool, another engine).
 */
export async function copyJob(
  h: Harness,
  fromName: string,
  name: string,
  edit: (settings: Record<string, unknown>) => void = () => {},
): Promise<string> {
  const source = await h.databricks.getJob(await jobIdByName(h.databricks, fromName));
  const settings = structuredClone(source.settings) as Record<string, unknown>;
  settings.name = name;
  edit(settings);
  const response = await fetch(`${h.emulator.url}/api/2.1/jobs/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  });
  if (!response.ok) throw new Error(`jobs/create answered ${response.status}: ${await response.text()}`);
  return String(((await response.json()) as { job_id: number | string }).job_id);
}

/** Imports one job and returns its first project (one per job cluster; single-cluster jobs have one). */
export async function importJob(h: Harness, jobId: string, settings: Record<string, unknown> = {}) {
  const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
    h.workspaceId,
    { jobIds: [jobId], settings },
    'test',
  );
  const project = imported?.projects[0];
  if (!project) throw new Error(`nothing imported for job ${jobId}`);
  return { jobId, projectId: project.id, ref: parseClusterRefKey(project.clusterKey) };
}

/** Waits until Setpoint has stored the Databricks run and its pipeline has finished with it. */
export function processedRun(h: Harness, projectId: string, runId: string) {
  return eventually(
    async () => {
      const page = await h.server.services.runs.list(projectId, { limit: 50, offset: 0 });
      return page.items.find(
        (item) =>
          item.externalRunId === runId && (item.pipelineState === 'DONE' || item.pipelineState === 'FAILED'),
      );
    },
    `run ${runId} to be processed`,
    90_000,
  );
}

/**
 * A finished recommendation of the given cluster, as if the optimizer had made it: for tests that need a
 * configuration the optimizer would not choose (one that fails, so that Setpoint reverts it).
 */
export async function insertRecommendation(
  server: Harness['server'],
  projectId: string,
  id: string,
  configuration: Record<string, unknown>,
  explanation: string,
  decision: Record<string, unknown> | null = null,
  now = Date.now(),
) {
  await storeRecommendation(server.services.store.db, {
    projectId,
    id,
    configuration,
    explanation,
    decision,
    now,
  });
}
