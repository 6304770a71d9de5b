import type {
  EmrAccessCheck,
  EmrAccountBody,
  EmrAccountList,
  EmrAccountResource,
  EmrAppliedConfigList,
  EmrApplyResource,
  EmrDiscoverResource,
  EmrImportBody,
  EmrImportResource,
  EmrRollbackResource,
} from '@setpoint/api-contract/emr';
import { api, apiRequest } from './client.js';

export type {
  EmrAccessCheck,
  EmrAccountBody,
  EmrAccountResource,
  EmrAppliedConfigResource,
  EmrCredentialsBody,
  EmrDiscoverResource,
  EmrGrouping,
  EmrImportResource,
} from '@setpoint/api-contract/emr';

const enc = encodeURIComponent;

/** The exports a project offers: RunJobFlow's `Instances` block as JSON, or `aws_emr_cluster` in Terraform. */
export type EmrExportFormat = 'json' | 'terraform';

/** The dashboard's client of the EMR routes (`/api/v1/emr/…` and a project's `emr/…`). */
export const emrEndpoints = {
  accounts: (signal?: AbortSignal) => api.get<EmrAccountList>('/api/v1/emr/accounts', { signal }),
  createAccount: (body: EmrAccountBody) => api.post<EmrAccountResource>('/api/v1/emr/accounts', body),
  removeAccount: (id: string) => api.delete<void>(`/api/v1/emr/accounts/${enc(id)}`),
  check: (id: string) => api.post<EmrAccessCheck>(`/api/v1/emr/accounts/${enc(id)}/check`, {}),
  discover: (id: string, sinceDays: number) =>
    api.get<EmrDiscoverResource>(`/api/v1/emr/accounts/${enc(id)}/discover?since_days=${sinceDays}`),
  importWorkloads: (id: string, body: EmrImportBody) =>
    api.post<EmrImportResource>(`/api/v1/emr/accounts/${enc(id)}/import`, body),

  appliedConfigs: (projectId: string, signal?: AbortSignal) =>
    api.get<EmrAppliedConfigList>(`/api/v1/projects/${enc(projectId)}/emr/applied-configs`, { signal }),
  apply: (projectId: string, recommendationId: string) =>
    api.post<EmrApplyResource>(`/api/v1/projects/${enc(projectId)}/emr/apply`, {
      recommendation_id: recommendationId,
    }),
  rollback: (projectId: string) =>
    api.post<EmrRollbackResource>(`/api/v1/projects/${enc(projectId)}/emr/rollback`, {}),
  resumeAutoApply: (projectId: string) =>
    api.post<{ resumed: true }>(`/api/v1/projects/${enc(projectId)}/emr/resume-auto-apply`, {}),
  /** The export as the server wrote it (JSON or HCL), shown verbatim. */
  exportText: (projectId: string, format: EmrExportFormat) =>
    apiRequest<string>('GET', `/api/v1/projects/${enc(projectId)}/emr/export?format=${format}`, {
      asText: true,
    }),
};
