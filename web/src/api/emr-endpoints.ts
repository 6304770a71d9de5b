import type { ConnectionResource } from '@setpoint/api-contract';
import type {
  EmrAccessCheck,
  EmrAccountBody,
  EmrAccountResource,
  EmrConnectionBody,
  EmrConnectionResource,
  EmrDiscoverResource,
  EmrImportBody,
  EmrImportResource,
  EmrServerlessDiscoverResource,
  EmrServerlessImportBody,
  EmrServerlessImportResource,
} from '@setpoint/api-contract/emr';
import { api } from './client.js';
import { connectionEndpoints } from './connection-endpoints.js';

export type {
  EmrAccessCheck,
  EmrAccountBody,
  EmrAccountResource,
  EmrCredentialsBody,
  EmrDiscoverResource,
  EmrGrouping,
  EmrImportResource,
  EmrServerlessDiscoverResource,
  EmrServerlessImportResource,
} from '@setpoint/api-contract/emr';

const enc = encodeURIComponent;

const isEmr = (connection: ConnectionResource): connection is EmrConnectionResource =>
  connection.platform === 'emr';

/** An account connected through `/api/v1/connections`, as the EMR pages show it. */
export function accountOfConnection(connection: EmrConnectionResource): EmrAccountResource {
  const { id, name, settings, created_at, updated_at } = connection;
  return { id, name, ...settings, created_at, updated_at };
}

/**
 * The dashboard's client of the EMR accounts: add, list and remove through `/api/v1/connections`, the
 * access check, discover and import through the EMR routes (`/api/v1/emr/…`).
 */
export const emrEndpoints = {
  accounts: (signal?: AbortSignal) =>
    connectionEndpoints
      .list(signal)
      .then((items) => ({ items: items.filter(isEmr).map(accountOfConnection) })),
  createAccount: ({ name, ...settings }: EmrAccountBody) =>
    connectionEndpoints
      // stored without signing in first, as before: the access check that follows says what is missing
      .add<EmrConnectionResource>({
        platform: 'emr',
        name,
        settings,
        check_sign_in: false,
      } satisfies EmrConnectionBody)
      .then(accountOfConnection),
  removeAccount: (id: string) => connectionEndpoints.remove(id),
  // the access check card reads each permission as typed fields, which the connections route's check lines
  // carry only as words: it stays on the EMR route until those lines carry them
  check: (id: string) => api.post<EmrAccessCheck>(`/api/v1/emr/accounts/${enc(id)}/check`, {}),
  discover: (id: string, sinceDays: number) =>
    api.get<EmrDiscoverResource>(`/api/v1/emr/accounts/${enc(id)}/discover?since_days=${sinceDays}`),
  importWorkloads: (id: string, body: EmrImportBody) =>
    api.post<EmrImportResource>(`/api/v1/emr/accounts/${enc(id)}/import`, body),
  serverlessDiscover: (id: string, sinceDays: number) =>
    api.get<EmrServerlessDiscoverResource>(
      `/api/v1/emr/accounts/${enc(id)}/serverless/discover?since_days=${sinceDays}`,
    ),
  serverlessImport: (id: string, body: EmrServerlessImportBody) =>
    api.post<EmrServerlessImportResource>(`/api/v1/emr/accounts/${enc(id)}/serverless/import`, body),
};
