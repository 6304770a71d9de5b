import type {
  EmrAccessCheck,
  EmrAccountBody,
  EmrAccountList,
  EmrAccountResource,
  EmrDiscoverResource,
  EmrImportBody,
  EmrImportResource,
  EmrServerlessDiscoverResource,
  EmrServerlessImportBody,
  EmrServerlessImportResource,
} from '@setpoint/api-contract/emr';
import { api } from './client.js';

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

/** The dashboard's client of the EMR routes (`/api/v1/emr/…`). */
export const emrEndpoints = {
  accounts: (signal?: AbortSignal) => api.get<EmrAccountList>('/api/v1/emr/accounts', { signal }),
  createAccount: (body: EmrAccountBody) => api.post<EmrAccountResource>('/api/v1/emr/accounts', body),
  removeAccount: (id: string) => api.delete<void>(`/api/v1/emr/accounts/${enc(id)}`),
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
