import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../../support/spawn-server.js';

/** Environment shared by every process of one deployment (API, workers, `keys`). */
export function deploymentEnv(databaseUrl?: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    SETPOINT_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'setpoint-stack-')),
    SETPOINT_MASTER_KEY: `test:${randomBytes(32).toString('base64')}`,
    SETPOINT_SERVER_SECRET: randomBytes(32).toString('base64'),
    SETPOINT_PORT: '0',
    SETPOINT_LOG_LEVEL: 'info',
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '0',
    ...(databaseUrl ? { SETPOINT_DATABASE_URL: databaseUrl } : {}),
    ...extra,
  };
}

export async function createKey(env: NodeJS.ProcessEnv): Promise<{ id: string; secret: string }> {
  const result = await runCli(['keys', 'create', '--name', 'e2e', '--json'], { env });
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { id: string; secret: string };
}

export function startApi(env: NodeJS.ProcessEnv, withWorker: boolean): Promise<SpawnedServer> {
  return spawnSetpoint(withWorker ? ['serve'] : ['serve', '--no-worker'], /listening on (http:\/\/\S+)/, env);
}

export function startWorker(env: NodeJS.ProcessEnv): Promise<SpawnedServer> {
  return spawnSetpoint(['worker'], /(Setpoint worker ready)/, env);
}

/** A tiny API client over fetch with a bearer token. */
export async function apiClient(baseUrl: string, key: { id: string; secret: string }) {
  const tokenResponse = await fetch(`${baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key_id: key.id, api_key_secret: key.secret }),
  });
  if (tokenResponse.status !== 200) throw new Error(`token exchange answered ${tokenResponse.status}`);
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const call = async (method: string, url: string, body?: unknown) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${token}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { ...init.headers, 'content-type': 'application/json' };
    }
    const response = await fetch(`${baseUrl}${url}`, init);
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path and assert on it
    return { status: response.status, text, json: (): any => JSON.parse(text) };
  };
  return { token, call };
}
