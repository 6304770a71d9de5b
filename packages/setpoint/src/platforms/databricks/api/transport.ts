import { isAppError, UpstreamError } from '@setpoint/foundation/errors';
import { DatabricksApiError, parseErrorBody } from './api-error.js';
import { createConcurrencyLimit } from './concurrency-limit.js';
import { parseLosslessJson } from './lossless-json.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Stop retrying once this much time has been spent waiting. */
  totalBudgetMs: number;
}

/**
 * How long one attempt may take, from connecting to the last byte of the answer: a host that is down or
 * black-holed fails the attempt after this long instead of holding the caller (undici's own limits are
 * 10 s to connect but 300 s for headers and body).
 */
export const defaultRequestTimeoutMs = 60_000;

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  totalBudgetMs: 300_000,
};

/** Where a request's Authorization header comes from: a fixed token or a refreshed OAuth token. */
export interface BearerAuth {
  method: string;
  authorization(): Promise<string>;
  /** Drops a cached token the workspace refused; true when there was one (worth one retry). */
  invalidate(): boolean;
  /** When the current token expires (epoch ms); undefined for a PAT or before the first request. */
  expiresAt(): number | undefined;
}

export function fixedToken(token: string): BearerAuth {
  return {
    method: 'pat',
    authorization: async () => `Bearer ${token}`,
    invalidate: () => false,
    expiresAt: () => undefined,
  };
}

/** How requests to a workspace are made, whatever the workspace (tests shorten retries and inject fetch). */
export interface TransportSettings {
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  maxConcurrentRequests?: number;
  /** Injected so tests never wait on the wall clock. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  userAgent?: string;
  /** One attempt's limit (connect to last byte); `defaultRequestTimeoutMs` unless set. */
  requestTimeoutMs?: number;
}

export type TransportOptions = TransportSettings & { host: string } & (
    | { token: string }
    | { auth: BearerAuth }
  );

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** This request's attempt limit instead of the transport's (a probe that must answer quickly). */
  timeoutMs?: number;
  /** At most this many attempts (1: no retry), within the transport's retry policy. */
  maxAttempts?: number;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: ArrayBuffer;
}

export interface DatabricksTransport {
  host: string;
  auth: BearerAuth;
  json(options: RequestOptions): Promise<unknown>;
  raw(options: RequestOptions): Promise<RawResponse>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function normalizeHost(host: string): string {
  const withScheme = /^https?:\/\//.test(host) ? host : `https://${host}`;
  return withScheme.replace(/\/+$/, '');
}

/**
 * HTTP to one workspace: bearer auth, bounded concurrency, retries on throttling and transient faults
 * honouring an integer `Retry-After`, otherwise exponential backoff with jitter.
 */
export function createTransport(options: TransportOptions): DatabricksTransport {
  const host = normalizeHost(options.host);
  const policy = { ...defaultRetryPolicy, ...options.retry };
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const limit = createConcurrencyLimit(options.maxConcurrentRequests ?? 8);
  const auth = 'auth' in options ? options.auth : fixedToken(options.token);

  function url(request: RequestOptions): string {
    const target = new URL(`${host}${request.path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    return target.toString();
  }

  async function attempt(request: RequestOptions): Promise<RawResponse> {
    const headers: Record<string, string> = {
      authorization: await auth.authorization(),
      'user-agent': options.userAgent ?? 'setpoint',
      ...request.headers,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    const timeoutMs = request.timeoutMs ?? options.requestTimeoutMs ?? defaultRequestTimeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let bytes: ArrayBuffer;
    try {
      response = await doFetch(url(request), { method: request.method, headers, body, signal });
      bytes = await response.arrayBuffer();
    } catch (error) {
      // Setpoint's own refusals (the outbound address rule) are final, not a network fault to retry.
      if (isAppError(error)) throw error;
      throw new DatabricksApiError({
        errorCode: signal.aborted ? 'TIMEOUT' : 'CONNECTION_FAILED',
        httpStatus: signal.aborted ? 504 : 503,
        message: signal.aborted
          ? `no answer from ${host} within ${timeoutMs / 1000} s`
          : `cannot reach ${host}: ${networkReason(error)}`,
        path: request.path,
      });
    }
    if (response.ok) return { status: response.status, headers: response.headers, body: bytes };
    const { errorCode, message } = parseErrorBody(
      response.status,
      response.statusText,
      Buffer.from(bytes).toString('utf8'),
    );
    throw new DatabricksApiError({
      errorCode,
      httpStatus: response.status,
      message,
      path: request.path,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    });
  }

  async function raw(request: RequestOptions): Promise<RawResponse> {
    let waited = 0;
    let reauthenticated = false;
    for (let attemptNumber = 1; ; attemptNumber += 1) {
      try {
        return await limit(() => attempt(request));
      } catch (error) {
        // an OAuth token revoked or expired early: one retry with a fresh token (a workspace answers an
        // expired token with 403 "Invalid access token.", some front doors with 401)
        if (
          error instanceof DatabricksApiError &&
          (error.httpStatus === 401 || error.httpStatus === 403) &&
          !reauthenticated &&
          auth.invalidate()
        ) {
          reauthenticated = true;
          continue;
        }
        if (
          !(error instanceof DatabricksApiError) ||
          !error.retryable ||
          attemptNumber >= Math.min(policy.maxAttempts, request.maxAttempts ?? policy.maxAttempts)
        )
          throw error;
        const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptNumber - 1));
        const delay = error.retryAfterMs ?? Math.round(backoff * (0.5 + random() / 2));
        if (waited + delay > policy.totalBudgetMs) throw error;
        waited += delay;
        await sleep(delay);
      }
    }
  }

  async function json(request: RequestOptions): Promise<unknown> {
    const response = await raw(request);
    const text = Buffer.from(response.body).toString('utf8');
    if (text.trim() === '') return {};
    try {
      return parseLosslessJson(text);
    } catch {
      throw new UpstreamError(
        'DATABRICKS_BAD_RESPONSE',
        `Databricks ${request.path} answered with invalid JSON`,
      );
    }
  }

  return { host, auth, json, raw };
}

/** fetch's "fetch failed" says nothing: the cause (ECONNREFUSED, ENOTFOUND…) is what the user needs. */
function networkReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (!cause?.message) return cause?.code ?? message;
  return cause.code && !cause.message.includes(cause.code)
    ? `${cause.code}: ${cause.message}`
    : cause.message;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
