import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMRClient } from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { loadConfig } from 'setpoint/config/load-config';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { type S3TestServer, startS3TestServer } from '../../support/s3-test-server.js';

export const emrTestRegion = 'us-east-1';

/** An AWS account on the emulator's EMR face: its event logs and step logs in a real S3 test server. */
export interface EmrFace {
  s3Server: S3TestServer;
  emulator: RunningEmulator;
  /** What a team's scheduler launches clusters with: the AWS SDK against the emulator. */
  launcher: EMRClient;
  /** Moves the account's clock on by `ms` and lets its clusters write the logs of what finished by then. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The emulator's EMR face with a frozen clock (tests move it), writing logs to the `emr-logs` and
 * `spark-events` buckets of an S3 test server; the emulator accepts any signed request with `keys`.
 */
export async function startEmrFace(
  seed: number,
  keys: { accessKeyId: string; secretAccessKey: string },
): Promise<EmrFace> {
  const s3Server = await startS3TestServer(['emr-logs', 'spark-events']);
  const emulator = await startEmulator({
    port: 0,
    clockSpeed: 0,
    seed,
    preloadJobs: false,
    s3LogDelivery: { endpoint: s3Server.endpoint, credentials: s3Server.credentials },
    emr: { region: emrTestRegion },
  });
  const launcher = new EMRClient({ endpoint: emulator.url, region: emrTestRegion, credentials: keys });
  return {
    s3Server,
    emulator,
    launcher,
    async advance(ms) {
      emulator.context.clock.advance(ms);
      emulator.emr.catchUp();
      await emulator.emr.logsWritten();
    },
    async close() {
      launcher.destroy();
      await emulator.close();
      await s3Server.close();
    },
  };
}

/**
 * A Setpoint server (SQLite, workers on) that may call the emulator and the S3 test server on
 * 127.0.0.1, retrying quickly; `env` adds or overrides settings (the reconciliation schedule, limits).
 */
export function startSetpointForEmr(name: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const config = loadConfig(
    { dataDir: mkdtempSync(path.join(tmpdir(), `setpoint-${name}-`)), port: 0 },
    {
      SETPOINT_LOG_LEVEL: 'warn',
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
      SETPOINT_JOB_MAX_ATTEMPTS: '8',
      SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '4',
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
      SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
      // the emulated account's clock is advanced by hours and days, ahead of the server's
      SETPOINT_RUN_CLOCK_TOLERANCE_HOURS: '8760',
      ...env,
    },
  );
  return startServer(config);
}

/**
 * The body of `POST /api/v1/emr/accounts` for the face's account: its keys, the emulator's endpoint,
 * the S3 test server's log-store keys, projects by the `setpoint:project-id` tag. `s3Endpoint` reads the
 * logs through another endpoint (a fault proxy).
 */
export function emrAccountRequest(
  face: EmrFace,
  keys: { accessKeyId: string; secretAccessKey: string },
  name: string,
  s3Endpoint = face.s3Server.endpoint,
) {
  return {
    name,
    region: emrTestRegion,
    endpoint: face.emulator.url,
    s3_endpoint: s3Endpoint,
    credentials: {
      kind: 'access-keys',
      access_key_id: keys.accessKeyId,
      secret_access_key: keys.secretAccessKey,
    },
    log_store_keys: {
      access_key_id: face.s3Server.credentials.accessKeyId,
      secret_access_key: face.s3Server.credentials.secretAccessKey,
    },
    grouping: { kind: 'tag', key: 'setpoint:project-id' },
  };
}
