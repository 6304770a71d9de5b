import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer } from './start-server.js';

// counts the route schemas turned into the OpenAPI document, and when
vi.mock('fastify-type-provider-zod', async (importOriginal) => {
  const original = await importOriginal<typeof import('fastify-type-provider-zod')>();
  return { ...original, jsonSchemaTransform: vi.fn(original.jsonSchemaTransform) };
});

describe('startServer', () => {
  it('builds the OpenAPI document before it listens, not on the event loop of its first request', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-start-'));
    const server = await startServer(loadConfig({ dataDir, port: 0 }, { SETPOINT_LOG_LEVEL: 'silent' }), {
      withWorker: false,
    });
    try {
      const built = vi.mocked(jsonSchemaTransform).mock.calls.length;
      expect(built).toBeGreaterThan(0);

      const response = await fetch(`${server.url}/api/v1/openapi.json`);
      const document = (await response.json()) as { paths: Record<string, unknown> };

      expect(response.status).toBe(200);
      expect(Object.keys(document.paths)).toContain('/api/v1/projects/{id}/runs');
      expect(vi.mocked(jsonSchemaTransform).mock.calls.length).toBe(built);
    } finally {
      await server.stop();
    }
  });
});
