import type { ConnectionCheckResource, ConnectionResource } from '@setpoint/api-contract';
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

const permissionLine = /^(?<permission>\S+)(?: on (?<resource>.+))? \((?<neededFor>collect|apply)\)$/;
const statusOf = /^(?<status>held|missing|unknown): (?<detail>.*)$/s;

/**
 * An EMR account's connection check as the access check card shows it: a permission line's `check` is
 * `<permission>[ on <resource>] (<needed for>)` and its `detail` starts with the status
 * (`platforms/emr/connection/emr-connector.ts`). A line of the sign-in before them (the account did not
 * answer, or refused the credentials) is shown as the one thing collection misses, with its fix.
 */
export function accessCheckOfConnection(check: ConnectionCheckResource): EmrAccessCheck {
  return {
    ok: check.ok,
    checks: check.lines.map((line) => {
      const permission = permissionLine.exec(line.check)?.groups;
      const status = statusOf.exec(line.detail)?.groups;
      if (permission?.permission && permission.neededFor && status?.status && status.detail !== undefined)
        return {
          permission: permission.permission,
          needed_for: permission.neededFor === 'apply' ? 'apply' : 'collect',
          status: status.status === 'held' ? 'held' : status.status === 'missing' ? 'missing' : 'unknown',
          detail: status.detail,
          resource: permission.resource ?? null,
        };
      return {
        permission: line.check,
        needed_for: 'collect',
        status: line.ok ? 'held' : 'missing',
        detail: line.fix ? `${line.detail}; fix: ${line.fix}` : line.detail,
        resource: null,
      };
    }),
  };
}

/**
 * The dashboard's client of the EMR accounts: their connect lifecycle through `/api/v1/connections`, the
 * rest through the EMR routes (`/api/v1/emr/…`).
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
  check: (id: string) => connectionEndpoints.check(id).then(accessCheckOfConnection),
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
