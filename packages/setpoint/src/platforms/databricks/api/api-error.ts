import { UpstreamError } from '@setpoint/foundation/errors';

/** A Databricks API failure, carrying Databricks' own `error_code` and the HTTP status. */
export class DatabricksApiError extends UpstreamError {
  readonly errorCode: string;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(params: {
    errorCode: string;
    httpStatus: number;
    message: string;
    path: string;
    retryAfterMs?: number | undefined;
  }) {
    const retryable = isRetryableStatus(params.httpStatus) || transientMessage.test(params.message);
    super(
      'DATABRICKS_API_ERROR',
      `Databricks ${params.path}: ${params.errorCode} (HTTP ${params.httpStatus}): ${params.message}`,
      {
        details: { errorCode: params.errorCode, httpStatus: params.httpStatus, path: params.path },
      },
    );
    this.errorCode = params.errorCode;
    this.httpStatus = params.httpStatus;
    this.retryable = retryable;
    this.retryAfterMs = params.retryAfterMs;
  }
}

export function isDatabricksApiError(error: unknown): error is DatabricksApiError {
  return error instanceof DatabricksApiError;
}

/** 429 and 503 are throttling; 500/502/504 are transient server faults worth a bounded retry. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

const transientMessage =
  /RPC token bucket limit has been exceeded|ClusterNotReadyException|Please try again later|TEMPORARILY_UNAVAILABLE/;

const statusCodes: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'RESOURCE_CONFLICT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_ERROR',
  501: 'NOT_IMPLEMENTED',
  502: 'BAD_GATEWAY',
  503: 'TEMPORARILY_UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * Reads every error body shape Databricks is known to send: `{error_code, message}` (error_code may be
 * an integer on legacy endpoints), API 1.2 `{error}`, SCIM `{detail, status}`, plain text
 * `ERROR_CODE: message`, HTML pages, and empty bodies.
 */
export function parseErrorBody(
  status: number,
  statusText: string,
  body: string,
): { errorCode: string; message: string } {
  const fallbackCode = statusCodes[status] ?? `HTTP_${status}`;
  const trimmed = body.trim();
  if (trimmed === '') return { errorCode: fallbackCode, message: statusText || fallbackCode };
  try {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    if (typeof parsed === 'object' && parsed !== null) {
      const code = parsed.error_code;
      const errorCode = typeof code === 'string' && code !== '' ? code : fallbackCode;
      const message = firstString(parsed.message, parsed.error, parsed.detail) ?? statusText;
      return { errorCode, message };
    }
  } catch {
    // not JSON: fall through to the text formats
  }
  const html = /<pre>([\s\S]*?)<\/pre>|<title>([\s\S]*?)<\/title>/i.exec(trimmed);
  if (html) return { errorCode: fallbackCode, message: (html[1] ?? html[2] ?? '').trim() };
  const prefixed = /^([A-Z][A-Z_]+): (.*)$/s.exec(trimmed);
  if (prefixed?.[1] && prefixed[2]) return { errorCode: prefixed[1], message: prefixed[2] };
  return { errorCode: fallbackCode, message: trimmed.slice(0, 500) };
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string' && value !== '');
}
