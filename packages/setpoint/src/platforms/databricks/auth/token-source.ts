import { isAppError } from '@setpoint/foundation/errors';
import { DatabricksApiError } from '../api/api-error.js';
import type { BearerAuth } from '../api/transport.js';
import { tokenErrorSchema, tokenResponseSchema } from './schema.js';
import { azureDatabricksResourceId, type WorkspaceAuth } from './workspace-auth.js';

export interface TokenSourceOptions {
  /** The same fetch the workspace's REST client uses, so outbound rules apply to token requests too. */
  fetch?: typeof fetch;
  now?: () => number;
}

/** Refresh this long before expiry (or at half the lifetime of a short-lived token). */
const refreshMarginMs = 5 * 60_000;

interface CachedToken {
  accessToken: string;
  expiresAtMs: number;
  refreshAtMs: number;
}

/**
 * The Authorization header for a workspace. A PAT is sent as is. An OAuth client-credentials token is
 * requested on first use, cached, and refreshed before it expires; concurrent callers share one request,
 * and `invalidate()` (after a 401) forces the next call to fetch a new one.
 */
/** A token request's limit (connect to last byte). */
export const tokenRequestTimeoutMs = 30_000;

export function createBearerAuth(
  auth: WorkspaceAuth,
  host: string,
  options: TokenSourceOptions = {},
): BearerAuth {
  if (auth.method === 'pat') {
    return {
      method: auth.method,
      authorization: async () => `Bearer ${auth.token}`,
      invalidate: () => false,
      expiresAt: () => undefined,
    };
  }
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const request =
    auth.method === 'oauth-m2m'
      ? {
          url: `${host}/oidc/v1/token`,
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'all-apis' }),
          // RFC 6749 §2.3.1: client id and secret, form-encoded, in HTTP Basic
          headers: {
            authorization: `Basic ${Buffer.from(
              `${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`,
            ).toString('base64')}`,
          },
        }
      : {
          url: `${auth.authorityHost}/${encodeURIComponent(auth.tenantId)}/oauth2/v2.0/token`,
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: auth.clientId,
            client_secret: auth.clientSecret,
            scope: `${azureDatabricksResourceId}/.default`,
          }),
          headers: {} as Record<string, string>,
        };
  let cached: CachedToken | undefined;
  let inFlight: Promise<CachedToken> | undefined;

  async function fetchToken(): Promise<CachedToken> {
    const path = new URL(request.url).pathname;
    let response: Response;
    let text: string;
    const signal = AbortSignal.timeout(tokenRequestTimeoutMs);
    try {
      response = await doFetch(request.url, {
        method: 'POST',
        headers: {
          ...request.headers,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: request.body.toString(),
        signal,
      });
      text = await response.text();
    } catch (error) {
      // Setpoint's own refusals (the outbound rules: an address, a redirect) are final, not a network fault
      if (isAppError(error)) throw error;
      const endpoint = new URL(request.url).host;
      throw new DatabricksApiError({
        errorCode: signal.aborted ? 'TIMEOUT' : 'CONNECTION_FAILED',
        httpStatus: signal.aborted ? 504 : 503,
        message: signal.aborted
          ? `no answer from the token endpoint ${endpoint} within ${tokenRequestTimeoutMs / 1000} s`
          : `cannot reach the token endpoint ${endpoint}: ${error instanceof Error ? error.message : String(error)}`,
        path,
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const parsed = tokenErrorSchema.safeParse(body);
      throw new DatabricksApiError({
        errorCode: parsed.success ? parsed.data.error : 'TOKEN_REQUEST_FAILED',
        httpStatus: response.status,
        message: parsed.success
          ? (parsed.data.error_description ?? parsed.data.error)
          : `the token endpoint answered HTTP ${response.status}`,
        path,
      });
    }
    const token = tokenResponseSchema.safeParse(body);
    if (!token.success)
      throw new DatabricksApiError({
        errorCode: 'TOKEN_RESPONSE_INVALID',
        httpStatus: 502,
        message: 'the token endpoint answered without access_token and expires_in',
        path,
      });
    const issuedAt = now();
    const lifetimeMs = token.data.expires_in * 1000;
    return {
      accessToken: token.data.access_token,
      expiresAtMs: issuedAt + lifetimeMs,
      refreshAtMs: issuedAt + lifetimeMs - Math.min(refreshMarginMs, lifetimeMs / 2),
    };
  }

  async function current(): Promise<CachedToken> {
    if (cached && now() < cached.refreshAtMs) return cached;
    inFlight ??= fetchToken().finally(() => {
      inFlight = undefined;
    });
    cached = await inFlight;
    return cached;
  }

  return {
    method: auth.method,
    authorization: async () => `Bearer ${(await current()).accessToken}`,
    invalidate: () => {
      const had = cached !== undefined;
      cached = undefined;
      return had;
    },
    expiresAt: () => cached?.expiresAtMs,
  };
}
