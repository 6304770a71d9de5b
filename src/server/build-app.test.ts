import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { openDatabase, type StoreConnection } from '../store/open-database.js';
import { buildApp } from './build-app.js';

describe('buildApp', () => {
  let app: FastifyInstance;
  let store: StoreConnection;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'setpoint-app-'));
    const webDir = path.join(dir, 'web');
    mkdirSync(webDir);
    writeFileSync(path.join(webDir, 'index.html'), '<html><body>dashboard</body></html>');
    store = await openDatabase({ dataDir: dir });
    app = await buildApp({ store, logger: createLogger('silent'), webDir });
  });

  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('answers health checks', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok' });
  });

  it('reports the storage backend and project count from the database', async () => {
    await store.db
      .insertInto('projects')
      .values({ id: 'p-1', name: 'nightly-etl', description: null, created_at: 1, updated_at: 1 })
      .execute();

    const response = await app.inject({ method: 'GET', url: '/api/v1/system' });

    expect(response.json()).toMatchObject({ database: 'sqlite', projects: 1 });
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const document = response.json() as { openapi: string; paths: Record<string, unknown> };

    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toContain('/api/v1/system');
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
