import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type ErrorKind, UpstreamError } from '@setpoint/foundation/errors';
import type { ResolvedConnection } from './cli-profile.js';

const statusKinds: Record<number, ErrorKind> = {
  400: 'validation',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  422: 'validation',
  429: 'rate_limited',
};

/** A multipart part: a file on disk, a JSON document sent as a file, or a plain text field. */
export type UploadPart =
  | { field: string; fileName: string; filePath: string }
  | { field: string; fileName: string; json: unknown }
  | { field: string; value: string };

/** The CLI's view of a Setpoint server: API key → bearer token, JSON in and out, errors as AppErrors. */
export function createApiClient(connection: ResolvedConnection, fetchImpl: typeof fetch = fetch) {
  let token: { value: string; expiresAt: number } | undefined;

  async function send(
    method: string,
    apiPath: string,
    init: { body?: RequestInit['body']; headers?: Record<string, string> } = {},
  ) {
    try {
      return await fetchImpl(`${connection.url}${apiPath}`, { method, ...init });
    } catch (error) {
      throw new UpstreamError(
        'SERVER_UNREACHABLE',
        `cannot reach the Setpoint server at ${connection.url} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  async function decode(response: Response): Promise<unknown> {
    const text = await response.text();
    const body: unknown = text ? safeJson(text) : {};
    if (response.ok) return body;
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    const kind = statusKinds[response.status] ?? 'upstream';
    throw new AppError(
      kind,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `the server answered HTTP ${response.status}`,
    );
  }

  async function accessToken(): Promise<string> {
    if (token && token.expiresAt - Date.now() > 30_000) return token.value;
    const response = await send('POST', '/api/v1/auth/token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key_id: connection.apiKeyId, api_key_secret: connection.apiKeySecret }),
    });
    const body = (await decode(response)) as { access_token: string; expires_at: number | string };
    const expiresAt = typeof body.expires_at === 'number' ? body.expires_at : Date.parse(body.expires_at);
    token = { value: body.access_token, expiresAt };
    return token.value;
  }

  async function request<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await accessToken()}` };
    let payload: RequestInit['body'] | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    return (await decode(await send(method, apiPath, { body: payload, headers }))) as T;
  }

  /** A non-JSON answer (Terraform text), with errors decoded like any other call. */
  async function requestText(method: string, apiPath: string): Promise<string> {
    const response = await send(method, apiPath, {
      headers: { authorization: `Bearer ${await accessToken()}` },
    });
    if (!response.ok) await decode(response);
    return response.text();
  }

  async function upload<T>(apiPath: string, parts: UploadPart[]): Promise<T> {
    const form = new FormData();
    for (const part of parts) {
      if ('value' in part) form.append(part.field, part.value);
      else if ('filePath' in part)
        form.append(
          part.field,
          new Blob([await readFile(part.filePath)]),
          part.fileName || path.basename(part.filePath),
        );
      else
        form.append(
          part.field,
          new Blob([JSON.stringify(part.json)], { type: 'application/json' }),
          part.fileName,
        );
    }
    const headers = { authorization: `Bearer ${await accessToken()}` };
    return (await decode(await send('POST', apiPath, { body: form, headers }))) as T;
  }

  return { url: connection.url, accessToken, request, requestText, upload };
}

export type ApiClient = ReturnType<typeof createApiClient>;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'BAD_RESPONSE', message: text.slice(0, 200) } };
  }
}
