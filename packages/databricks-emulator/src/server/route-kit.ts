import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { invalidParameter } from './api-errors.js';
import type { FaultInjector, FaultRule } from './faults.js';
import type { RateLimiter } from './rate-limiter.js';

export type ApiVersion = '2.0' | '2.1' | '2.2';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface ApiCall {
  request: FastifyRequest;
  reply: FastifyReply;
  version: ApiVersion;
  query: Record<string, string | undefined>;
  body: unknown;
}

export type ApiHandler = (call: ApiCall) => unknown | Promise<unknown>;

export interface RouteKit {
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  /** Brings the simulation up to the current simulated time before a handler reads state. */
  beforeHandler: () => void;
}

export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw invalidParameter(`Invalid request: ${where}${issue?.message ?? 'malformed body'}`);
}

/** The `error_code` the real service pairs with each status (Python SDK `errors/platform.py`). */
const faultErrorCodes: Record<number, string> = {
  400: 'INVALID_PARAMETER_VALUE',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'RESOURCE_DOES_NOT_EXIST',
  409: 'RESOURCE_CONFLICT',
  429: 'REQUEST_LIMIT_EXCEEDED',
  499: 'CANCELLED',
  500: 'INTERNAL_ERROR',
  501: 'NOT_IMPLEMENTED',
  503: 'TEMPORARILY_UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function sendFault(reply: FastifyReply, fault: FaultRule): FastifyReply {
  const status = fault.status ?? 500;
  const errorCode = faultErrorCodes[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
  if (status === 429 || status === 503) reply.header('retry-after', String(fault.retryAfterSeconds ?? 1));
  return reply
    .code(status)
    .type('application/json')
    .send(JSON.stringify({ error_code: errorCode, message: `Injected fault: HTTP ${status}` }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Registers one handler under every API version the real service serves it at, wrapped with fault
 * injection (before or after the handler) and the published per-endpoint rate limits.
 */
export function registerApi(
  app: FastifyInstance,
  kit: RouteKit,
  method: HttpMethod,
  path: string,
  versions: readonly ApiVersion[],
  handler: ApiHandler,
): void {
  for (const version of versions) {
    app.route({
      method,
      url: `/api/${version}${path}`,
      handler: async (request, reply) => {
        const urlPath = request.url.split('?')[0] ?? request.url;
        const fault = kit.faults.take('http', urlPath, request.method);
        if (fault?.delayMs && !fault.afterHandler) await sleep(fault.delayMs);
        if (fault?.status !== undefined && !fault.afterHandler) return sendFault(reply, fault);
        const retryAfter = kit.rateLimiter.check(urlPath.replace(/^\/api\/2\.\d/, ''));
        if (retryAfter !== undefined) {
          return reply
            .code(429)
            .header('retry-after', String(retryAfter))
            .type('application/json')
            .send(
              JSON.stringify({
                error_code: 'REQUEST_LIMIT_EXCEEDED',
                message: 'Too many requests. Please try again later.',
              }),
            );
        }
        kit.beforeHandler();
        const result = await handler({
          request,
          reply,
          version,
          query: request.query as Record<string, string | undefined>,
          body: request.body,
        });
        // after the state changed: a late answer (a client may stop before it arrives) or a lost one
        if (fault?.delayMs && fault.afterHandler) await sleep(fault.delayMs);
        if (fault?.status !== undefined && fault.afterHandler) return sendFault(reply, fault);
        if (reply.sent) return reply;
        if (typeof result === 'string') return reply.type('application/json').send(result);
        return result ?? {};
      },
    });
  }
}

export function queryInt(query: Record<string, string | undefined>, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw invalidParameter(`Invalid value for parameter ${name}: ${raw}`);
  return Number(raw);
}

export function queryBool(query: Record<string, string | undefined>, name: string): boolean {
  return query[name] === 'true' || query[name] === '1';
}
