import type {} from '@fastify/cookie';
import { ForbiddenError, UnauthorizedError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';
import type { ApiKeyService } from '../../service/auth/api-key-service.js';
import type { Principal } from '../../service/auth/principal.js';
import type { UserService } from '../../service/auth/user-service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without credentials (health, OpenAPI, token exchange, sign-in, the webhook receiver). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export const sessionCookie = 'setpoint_session';
export const csrfCookie = 'setpoint_csrf';
export const csrfHeader = 'x-csrf-token';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Managing credentials and users, and reading the organization's audit trail, are for admins only. */
const adminOnly: ReadonlyArray<readonly [prefix: string, what: string]> = [
  ['/api/v1/api-keys', 'manage API keys'],
  ['/api/v1/users', 'manage users'],
  ['/api/v1/audit', "read the organization's audit trail"],
];

/** The dashboard's static files and routes marked public need no credentials; the API and /metrics do. */
export function isPublicRoute(url: string, config: { public?: boolean } | undefined): boolean {
  if (config?.public === true) return true;
  // `/v1/` is the Gradient compatibility API: protected like `/api/`.
  return !url.startsWith('/api/') && !url.startsWith('/v1/') && url !== '/metrics';
}

/** Every role signs itself out and changes its own password. */
const ownSessionRoutes = new Set(['/api/v1/session', '/api/v1/session/password']);

/** What a role may do; the API enforces it, the dashboard only mirrors it. */
export function authorize(principal: Principal, method: string, url: string): void {
  if (principal.role === 'admin') return;
  const adminArea = adminOnly.find(([prefix]) => url.startsWith(prefix));
  if (adminArea) throw new ForbiddenError(`only admins may ${adminArea[1]}`);
  if (principal.role === 'viewer' && !safeMethods.has(method) && !ownSessionRoutes.has(url)) {
    throw new ForbiddenError('viewers can look but not change anything (apply, roll back, settings)');
  }
}

/**
 * Every matched API route needs `Authorization: Bearer <access token>` or a dashboard session
 * cookie (with the CSRF header on state-changing requests), unless its config says public.
 */
export function registerAuthentication(
  app: FastifyInstance,
  apiKeys: Pick<ApiKeyService, 'authenticate'>,
  users: Pick<UserService, 'session'>,
): void {
  app.addHook('onRequest', async (request) => {
    if (request.is404 || isPublicRoute(request.routeOptions.url ?? '', request.routeOptions.config)) return;
    const header = request.headers.authorization;
    const bearer = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (bearer?.[1]) {
      request.principal = { ...(await apiKeys.authenticate(bearer[1])), role: 'admin', via: 'api-key' };
      return;
    }
    const token = request.cookies?.[sessionCookie];
    if (!token)
      throw new UnauthorizedError(
        'missing bearer token: exchange an API key at POST /api/v1/auth/token, or sign in',
      );
    const session = await users.session(token);
    if (!session) throw new UnauthorizedError('your session has expired; sign in again');
    if (!safeMethods.has(request.method) && request.headers[csrfHeader] !== session.csrfToken) {
      throw new ForbiddenError('missing or invalid CSRF token');
    }
    request.principal = {
      keyId: session.user.id,
      actor: `user:${session.user.username}`,
      role: session.user.role,
      via: 'session',
    };
    authorize(request.principal, request.method, request.routeOptions.url ?? request.url);
  });
}
