export interface SystemInfo {
  version: string;
  database: 'sqlite' | 'postgres';
  projects: number;
}

export class ApiRequestError extends Error {}

export async function fetchJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message =
      typeof body === 'object' && body !== null && 'error' in body
        ? String((body as { error: { message?: unknown } }).error.message)
        : `HTTP ${response.status}`;
    throw new ApiRequestError(message);
  }
  return body as T;
}
