import {
  buildEmulator,
  type Emulator,
  type EmulatorOptions,
} from '@setpoint/databricks-emulator/server/build-emulator';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { afterEach } from 'vitest';

export const startTime = Date.UTC(2026, 2, 2, 6, 0, 0);

export interface TestEmulator {
  emulator: Emulator;
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'HEAD',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    json: Record<string, unknown>;
    text: string;
    headers: Record<string, string | string[] | number | undefined>;
  }>;
  advance(ms: number): Promise<void>;
}

/** An emulator driven in-process through Fastify's inject, on a frozen clock moved by `advance`. */
export async function testEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await buildEmulator({
    nodeSpecs: catalogNodeSpecs,
    clockSpeed: 0,
    startTimeMs: startTime,
    rateLimitScale: 0,
    ...options,
  });
  const call: TestEmulator['call'] = async (method, url, body, headers = {}) => {
    const response = await emulator.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${emulator.token}`, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    let json: Record<string, unknown> = {};
    try {
      json = response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
    } catch {
      json = {};
    }
    return { status: response.statusCode, json, text: response.body, headers: response.headers };
  };
  return {
    emulator,
    call,
    advance: async (ms) => {
      const response = await call('POST', '/emulator/admin/clock', { advance_ms: ms });
      if (response.status !== 200) throw new Error(`clock advance failed: ${response.text}`);
    },
  };
}

/** A fresh emulator per call; every one a test opened is closed after it. Call once per test file. */
export function freshEmulators(): (options?: EmulatorOptions) => Promise<TestEmulator> {
  const open: TestEmulator[] = [];
  afterEach(async () => {
    for (const api of open.splice(0)) await api.emulator.close();
  });
  return async (options = {}) => {
    const api = await testEmulator(options);
    open.push(api);
    return api;
  };
}
