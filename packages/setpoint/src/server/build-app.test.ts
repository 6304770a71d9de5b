import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeServices, type Services } from '../composition/compose-services.js';
import { configSchema } from '../config/schema.js';
import { createLogger } from '../logging/logger.js';
import { buildApp } from './build-app.js';

describe('buildApp', () => {
  let app: FastifyInstance;
  let services: Services;
  let token: string;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'setpoint-app-'));
    const webDir = path.join(dir, 'web');
    mkdirSync(webDir);
    writeFileSync(path.join(webDir, 'index.html'), '<html><body>dashboard</body></html>');
    const logger = createLogger('silent');
    services = await composeServices({ config: configSchema.parse({ dataDir: dir }), logger });
    app = await buildApp({ services, logger, webDir });
    const key = await services.apiKeys.create('test', 'test');
    token = (await services.apiKeys.exchange(key.id, key.secret)).accessToken;
  });

  afterAll(async () => {
    await app.close();
    await services.close();
  });

  it('answers health checks', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok' });
  });

  it('reports the storage backend and project count from the database', async () => {
    await services.store.db
      .insertInto('projects')
      .values({ id: 'p-1', name: 'nightly-etl', description: null, created_at: 1, updated_at: 1 })
      .execute();

    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/system',
      headers: { authorization: `Bearer ${token}` },
    });

    expect(response.json()).toMatchObject({ database: 'sqlite', projects: 1 });
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const document = response.json() as { openapi: string; paths: Record<string, unknown> };

    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/system',
        '/api/v1/projects',
        '/api/v1/projects/{id}/runs',
        '/api/v1/auth/token',
      ]),
    );
  });

  it('answers unknown API routes with a JSON error body', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/nothing-here' });

    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: { code: 'ROUTE_NOT_FOUND', message: 'no route GET /api/v1/nothing-here' },
    });
  });

  it('serves the dashboard for client-side routes', async () => {
    const response = await app.inject({ method: 'GET', url: '/projects/p-1' });

    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('dashboard');
  });
});
