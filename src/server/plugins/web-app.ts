import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './error-handler.js';

/** Where `vite build` writes the dashboard, relative to both src/ and dist/. */
export const webDistDir = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * Serves the built dashboard when it exists. Unknown API paths answer a JSON 404; other GETs
 * without a file extension fall back to index.html so client-side routes survive a reload.
 */
export async function registerWebApp(app: FastifyInstance, dir: string = webDistDir): Promise<void> {
  const hasWebApp = existsSync(dir);
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
