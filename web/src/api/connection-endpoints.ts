import type { ConnectionBody, ConnectionCheckResource, ConnectionResource } from '@setpoint/api-contract';
import { api } from './client.js';

const enc = encodeURIComponent;

/**
 * The dashboard's client of the connect lifecycle of every platform (`/api/v1/connections`): add, list,
 * get, check, remove. A platform's pages read a connection's `settings` through their platform's own
 * endpoints, which narrow it to the platform's wire type.
 */
export const connectionEndpoints = {
  list: (signal?: AbortSignal) =>
    api
      .get<{ items: ConnectionResource[] }>('/api/v1/connections', { signal })
      .then((answer) => answer.items),
  get: (id: string) => api.get<ConnectionResource>(`/api/v1/connections/${enc(id)}`),
  add: <Connection extends ConnectionResource>(body: ConnectionBody) =>
    api.post<Connection>('/api/v1/connections', body),
  /** `options` are the platform's own (a log destination, log locations…). */
  check: (id: string, options: Record<string, unknown> = {}) =>
    api.post<ConnectionCheckResource>(`/api/v1/connections/${enc(id)}/check`, { options }),
  remove: (id: string) => api.delete<void>(`/api/v1/connections/${enc(id)}`),
};
