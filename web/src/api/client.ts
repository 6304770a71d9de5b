/** An API call that failed, with the server's `{error: {code, message}}` when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server has no such route: the feature is not available on this server version. */
  get notAvailable(): boolean {
    return this.status === 404 && this.code === 'ROUTE_NOT_FOUND';
  }

  get unauthorized(): boolean {
    return this.status === 401;
  }
}

export const csrfCookieName = 'setpoint_csrf';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

let unauthorizedHandler: (() => void) | null = null;

/** Called on every 401 so the app can send the person to the sign-in page. */
export function onUnauthorized(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

function errorFrom(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'object' && error !== null) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      return new ApiError(
        status,
        typeof code === 'string' ? code : `HTTP_${status}`,
        String(message ?? `HTTP ${status}`),
      );
    }
  }
  const fallback: Record<number, string> = {
    401: 'You are signed out.',
    403: 'Your role does not allow this.',
    404: 'Not found.',
    429: 'Too many requests; try again in a moment.',
  };
  return new ApiError(status, `HTTP_${status}`, fallback[status] ?? `The server answered HTTP ${status}.`);
}

export interface RequestOptions {
  body?: unknown;
  /** A 401 from this call is an answer, not a reason to leave the page (the session probe). */
  expectUnauthorized?: boolean;
  signal?: AbortSignal;
  /** The answer is text (an export in HCL or JSON shown verbatim), returned unparsed. */
  asText?: boolean;
}

/**
 * The one way the dashboard talks to the API: same-origin session cookie, JSON in and out, the CSRF
 * header on state-changing requests, and `{error}` bodies turned into readable ApiErrors.
 */
export async function apiRequest<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    const csrf = readCookie(csrfCookieName);
    if (csrf) headers['x-csrf-token'] = csrf;
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', 'Cannot reach the Setpoint server; check that it is running.');
  }
  const text = await response.text();
  let body: unknown = null;
  if (options.asText && response.ok) return text as T;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) {
    const error = errorFrom(response.status, body);
    if (error.unauthorized && !options.expectUnauthorized) unauthorizedHandler?.();
    throw error;
  }
  return body as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => apiRequest<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body: unknown) => apiRequest<T>('PATCH', path, { body }),
  put: <T>(path: string, body: unknown) => apiRequest<T>('PUT', path, { body }),
  delete: <T>(path: string) => apiRequest<T>('DELETE', path),
};

/** Message to show for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
