/**
 * Issue 40, finding 7: a request whose handler ran past the idle socket timeout (60 s) was dropped
 * without an answer — e.g. a workspace check against a throttled workspace — while its work went on.
 * Over a listening server with a 1 s idle timeout, against a workspace that answers 3 s late.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

/** A Databricks host that answers every request `delayMs` late (a throttled workspace). */
async function slowWorkspace(delayMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jobs: [], has_more: false, clusters: [], node_types: [] }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('requests that take longer than the idle timeout', () => {
  let workspace: Awaited<ReturnType<typeof slowWorkspace>>;
  const servers: Harness[] = [];

  beforeAll(async () => {
    workspace = await slowWorkspace(3_000);
  });

  afterAll(async () => {
    for (const h of servers) await h.close();
    workspace?.server.close();
  });

  async function listening(config: Record<string, unknown>) {
    const h = await createHarness({ config: { outboundAllowList: new URL(workspace.url).host, ...config } });
    servers.push(h);
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const created = await h.request('POST', '/api/v1/workspaces', {
      name: 'throttled',
      cloud: 'aws',
      host: workspace.url,
      credentials: { token: 'dapi-throttled-0123' },
    });
    expect(created.status).toBe(201);
    const check = () =>
      fetch(`${base}/api/v1/workspaces/${created.json().id}/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    return { check };
  }

  it('answers a check that runs past the idle timeout', async () => {
    const { check } = await listening({ idleTimeoutSeconds: 1 });
    const response = await check();
    expect(response.status).toBe(200);
    const body = (await response.json()) as { checks: unknown[] };
    expect(body.checks.length).toBeGreaterThan(0);
  });

  it('answers 503 REQUEST_TIMEOUT, not a closed connection, at the response deadline', async () => {
    const { check } = await listening({
      idleTimeoutSeconds: 1,
      requestTimeoutSeconds: 1,
      responseTimeoutSeconds: 2,
    });
    const response = await check();
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('REQUEST_TIMEOUT');
    expect(body.error.message).toMatch(/within 2 s .* may still complete/);
  });
});
