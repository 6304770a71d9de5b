import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../../errors/index.js';
import type { ApiKeyService, Principal } from '../../projects/api-key-service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without a bearer token (health, OpenAPI, token exchange). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Principal of an authenticated request; routes behind the auth hook always have one. */
export function principalOf(request: { principal?: Principal }): Principal {
  if (!request.principal) throw new UnauthorizedError();
  return request.principal;
}

/** The dashboard's static files and routes marked public need no token; the API and /metrics do. */
export function isPublicRoute(url: string, config: { public?: boolean } | undefined): boolean {
  if (config?.public === true) return true;
  return !url.startsWith('/api/') && url !== '/metrics';
}

/**
 * Every matched route needs `Authorization: Bearer <access token>` unless its config says public.
 * Unmatched paths fall through to the 404 / dashboard handler.
 */
export function registerAuthentication(
  app: FastifyInstance,
  apiKeys: Pick<ApiKeyService, 'authenticate'>,
): void {
  app.addHook('onRequest', async (request) => {
    if (request.is404 || isPublicRoute(request.routeOptions.url ?? '', request.routeOptions.config)) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match?.[1])
      throw new UnauthorizedError('missing bearer token: exchange an API key at POST /api/v1/auth/token');
    request.principal = await apiKeys.authenticate(match[1]);
  });
}
