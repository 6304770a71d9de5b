import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type AnalysisPorts, composeServices, type Services } from 'setpoint/composition/compose-services';
import { configSchema, type SetpointConfig } from 'setpoint/config/schema';
import { createLogger } from 'setpoint/logging/logger';
import type { PlatformPlugin } from 'setpoint/platform-api/platform';
import { buildApp } from 'setpoint/server/build-app';
import type { ConnectionLimits } from 'setpoint/service/connections/connection-service';
import { pollUntil } from '../../support/poll-until.js';

export interface Harness {
  app: FastifyInstance;
  services: Services;
  config: SetpointConfig;
  dataDir: string;
  key: { id: string; secret: string };
  token: string;
  /** Every log line the server wrote. */
  logLines(): string[];
  request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path and assert on it
  json: () => any;
}

export interface HarnessOptions {
  databaseUrl?: string;
  config?: Partial<Record<keyof SetpointConfig, unknown>>;
  analysis?: Partial<AnalysisPorts>;
  startWorkers?: boolean;
  /** Written to `<data-dir>/pricing/overrides.json` before the services start. */
  pricingOverrides?: unknown;
  /** An existing data directory (a restart of an earlier harness); a fresh one by default. */
  dataDir?: string;
  /** The platforms to run, when not every registered one with its defaults. */
  platforms?: PlatformPlugin[];
  /** How long a connection's sign-in and check may take, when not the defaults. */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** A full API (real services, real database) on a fresh data directory, with an API key and token. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'setpoint-service-'));
  if (options.pricingOverrides !== undefined) {
    mkdirSync(path.join(dataDir, 'pricing'), { recursive: true });
    writeFileSync(path.join(dataDir, 'pricing', 'overrides.json'), JSON.stringify(options.pricingOverrides));
  }
  const config = configSchema.parse({
    dataDir,
    databaseUrl: options.databaseUrl,
    logLevel: 'info',
    jobRetryDelaySeconds: 0,
    jobLeaseSeconds: 5,
    ...options.config,
  });
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const logger = createLogger('info', stream);
  const services = await composeServices({
    config,
    logger,
    ...(options.analysis ? { analysis: options.analysis } : {}),
    ...(options.platforms ? { platforms: options.platforms } : {}),
    ...(options.connectionLimits ? { connectionLimits: options.connectionLimits } : {}),
  });
  const app = await buildApp({ services, logger, webDir: path.join(dataDir, 'no-web') });
  if (options.startWorkers) await services.startWorkers();
  const key = await services.apiKeys.create('test', 'test');
  const { accessToken } = await services.apiKeys.exchange(key.id, key.secret);
  return {
    app,
    services,
    config,
    dataDir,
    key,
    token: accessToken,
    logLines: () => lines,
    async request(method, url, body) {
      const response = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${accessToken}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: response.statusCode, body: response.body, json: () => response.json() };
    },
    async close() {
      await app.close();
      await services.close();
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 90_000,
  what = 'condition',
): Promise<T> {
  return pollUntil(check, what, { timeoutMs, retryErrors: false });
}

/**
 * Puts the harness's API on a loopback port and returns the environment that points the `setpoint` CLI at
 * it with the harness's key (and a fresh CLI home, so no profile on the machine is read).
 */
export async function cliEnvOf(h: Harness) {
  const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    SETPOINT_HOME: mkdtempSync(path.join(tmpdir(), 'setpoint-cli-home-')),
    SETPOINT_URL: address,
    SETPOINT_API_KEY_ID: h.key.id,
    SETPOINT_API_KEY_SECRET: h.key.secret,
  };
}

/** Signs a dashboard user in and returns the headers a browser would send: the session cookies and the CSRF token. */
export async function signedInHeaders(
  h: Pick<Harness, 'app'>,
  username: string,
  password: string,
): Promise<{ cookie: string; 'x-csrf-token': string }> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/v1/session',
    payload: { username, password },
  });
  if (response.statusCode !== 200) throw new Error(`${username} could not sign in: ${response.body}`);
  const cookies = response.cookies as Array<{ name: string; value: string }>;
  return {
    cookie: cookies.map((entry) => `${entry.name}=${entry.value}`).join('; '),
    'x-csrf-token': cookies.find((entry) => entry.name === 'setpoint_csrf')?.value ?? '',
  };
}

export const fixturesDir = path.resolve('tests/fixtures/service');
