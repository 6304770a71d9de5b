import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './error-handler.js';

/** Where the dashboard package (`@setpoint/web`, built by `vite build`) keeps its files; undefined without it. */
export const webDistDir: string | undefined = (() => {
  try {
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve('@setpoint/web/package.json')),
      'dist',
    );
  } catch {
    return undefined;
  }
})();

/**
 * Serves the built dashboard when it exists. Unknown API paths answer a JSON 404; other GETs
 * without a file extension fall back to index.html so client-side routes survive a reload.
 */
export async function registerWebApp(
  app: FastifyInstance,
  dir: string | undefined = webDistDir,
): Promise<void> {
  const hasWebApp = dir !== undefined && existsSync(dir);
  if (hasWebApp) await app.register(fastifyStatic, { root: dir, wildcard: false });
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPageRequest =
      request.method === 'GET' && !pathname.startsWith('/api/') && !pathname.includes('.');
    if (hasWebApp && isPageRequest) return reply.type('text/html').sendFile('index.html');
    const body: ErrorBody = {
      error: { code: 'ROUTE_NOT_FOUND', message: `no route ${request.method} ${pathname}` },
    };
    return reply.status(404).send(body);
  });
}
