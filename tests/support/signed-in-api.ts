import type { RunningServer } from 'setpoint/server/start-server';

export type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A call of the server's API: the status and the JSON body (null when empty). */
export type ApiCall = <T>(
  method: ApiMethod,
  url: string,
  payload?: unknown,
) => Promise<{ status: number; body: T }>;

/**
 * A new API key of the server, exchanged for a token, and a client of the API signed in with it (through
 * Fastify's inject, no socket); `key` is what the CLI is configured with.
 */
export async function signedInApi(server: RunningServer, keyName: string) {
  const key = await server.services.apiKeys.create(keyName, 'test');
  const token = (await server.services.apiKeys.exchange(key.id, key.secret)).accessToken;
  const api: ApiCall = async <T>(method: ApiMethod, url: string, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: response.statusCode, body: (response.body ? response.json() : null) as T };
  };
  return { key, token, api };
}
