import type {
  AlertDestinationResource as AlertDestination,
  AlertRuleResource as AlertRule,
  ApiKeyResource as ApiKey,
  AppliedConfigListResource as AppliedConfigList,
  ApprovalResource,
  AuditTrailEntryResource as AuditEntry,
  AuditFacets,
  ConnectionCheckResource,
  ConnectionResource,
  ExportFormat,
  FormFactorAdviceResource,
  NotificationResource as Notification,
  OrganizationSettingsResource as OrganizationSettings,
  OrganizationSummaryWire as OrganizationSummary,
  Page,
  ProjectResource as Project,
  ProjectSettings,
  RecommendationResource as Recommendation,
  RollbackResource,
  RunResource as Run,
  RunDetailResource as RunDetail,
  SessionUser,
  SystemInfo,
  UserResource as User,
  WorkspaceResource as Workspace,
  WorkspaceBody,
} from '@setpoint/api-contract';
import type {
  AccessCheckLine,
  BillingAccuracyResource as BillingAccuracy,
  DatabricksConnectionBody,
  DatabricksConnectionResource,
  DiscoverResource,
  ImportResource,
  RunBillingResource as RunBilling,
  WorkspaceAuthBody,
  WorkspaceAuthResource,
} from '@setpoint/api-contract/databricks';
import { api, apiRequest, type RequestOptions } from './client.js';
import { connectionEndpoints } from './connection-endpoints.js';

const isDatabricks = (connection: ConnectionResource): connection is DatabricksConnectionResource =>
  connection.platform === 'databricks';

/** A workspace connected through `/api/v1/connections`, as the workspace pages show it. */
export function workspaceOfConnection(connection: DatabricksConnectionResource): Workspace {
  const { id, name, platform, settings, created_at, updated_at } = connection;
  return { id, name, platform, ...settings, created_at, updated_at };
}

/** A workspace's connection check as the access check lines show it (a line's fix only when it has one). */
export function accessLinesOf(check: ConnectionCheckResource): AccessCheckLine[] {
  return check.lines.map(({ fix, ...line }) => ({ ...line, ...(fix !== null && { fix }) }));
}

const maxPage = 500;
/** Enough projects to fill the first screen; the small page keeps first paint fast with thousands. */
const firstProjectsPage = 100;

/** Resolves once the browser has painted the next frame: what a state update rendered is on screen. */
export const afterNextPaint = (): Promise<void> =>
  new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Every item of a paginated list: first page, then the rest in parallel, each page reported as it
 * lands. `beforeRest` runs between the two (the projects list waits for its first rows to be painted,
 * so the big pages do not compete with first render for the CPU).
 */
export async function fetchAll<T>(
  path: string,
  signal?: AbortSignal,
  onProgress?: (loaded: T[], total: number) => void,
  firstPage?: Promise<Page<T>>,
  beforeRest?: () => Promise<void>,
): Promise<T[]> {
  const join = path.includes('?') ? '&' : '?';
  const first = await (firstPage ?? api.get<Page<T>>(`${path}${join}limit=${maxPage}&offset=0`, { signal }));
  const pages: T[][] = [first.items];
  onProgress?.(first.items, first.total);
  if (first.items.length >= first.total) return first.items;
  await beforeRest?.();
  const offsets: number[] = [];
  for (let offset = first.items.length; offset < first.total; offset += maxPage) offsets.push(offset);
  const concurrency = 4;
  for (let index = 0; index < offsets.length; index += concurrency) {
    const batch = offsets.slice(index, index + concurrency);
    const results = await Promise.all(
      batch.map((offset) => api.get<Page<T>>(`${path}${join}limit=${maxPage}&offset=${offset}`, { signal })),
    );
    for (const page of results) pages.push(page.items);
    onProgress?.(pages.flat(), first.total);
  }
  return pages.flat();
}

const enc = encodeURIComponent;

const projectsPath = '/api/v1/projects?sort=name';
let prefetchedProjects: Promise<Page<Project>> | undefined;

/**
 * Starts loading the first page of projects while the app boots and checks the session, so the
 * projects page does not wait for those round trips. Used once; a failure is retried by the page.
 */
const firstProjectsPath = `${projectsPath}&limit=${firstProjectsPage}&offset=0`;

export function prefetchProjects(): void {
  prefetchedProjects = api.get<Page<Project>>(firstProjectsPath, { expectUnauthorized: true });
  prefetchedProjects.catch(() => undefined);
}

function takePrefetchedProjects(signal?: AbortSignal): Promise<Page<Project>> {
  const taken =
    prefetchedProjects?.catch(() => api.get<Page<Project>>(firstProjectsPath, { signal })) ??
    api.get<Page<Project>>(firstProjectsPath, { signal });
  prefetchedProjects = undefined;
  return taken;
}

let prefetchedSession: Promise<{ user: SessionUser }> | undefined;

const sessionRequest = () => api.get<{ user: SessionUser }>('/api/v1/session', { expectUnauthorized: true });

/** Starts the session check before the app's code has loaded; the first `endpoints.session()` takes it. */
export function prefetchSession(): void {
  prefetchedSession = sessionRequest();
  prefetchedSession.catch(() => undefined);
}

export const endpoints = {
  system: (options?: RequestOptions) => api.get<SystemInfo>('/api/v1/system', options),

  session: () => {
    const taken = prefetchedSession ?? sessionRequest();
    prefetchedSession = undefined;
    return taken;
  },
  signIn: (username: string, password: string) =>
    api.post<{ user: SessionUser }>('/api/v1/session', { username, password }, { expectUnauthorized: true }),
  signOut: () => api.delete<void>('/api/v1/session'),
  changePassword: (currentPassword: string, newPassword: string) =>
    api.put<void>('/api/v1/session/password', {
      current_password: currentPassword,
      new_password: newPassword,
    }),

  users: (signal?: AbortSignal) => api.get<{ items: User[] }>('/api/v1/users', { signal }),
  createUser: (body: { username: string; role: User['role']; password?: string }) =>
    api.post<{ user: User; password?: string }>('/api/v1/users', body),
  updateUser: (id: string, patch: { role?: User['role']; disabled?: boolean }) =>
    api.patch<User>(`/api/v1/users/${enc(id)}`, patch),
  deleteUser: (id: string) => api.delete<void>(`/api/v1/users/${enc(id)}`),
  resetPassword: (id: string) =>
    api.post<{ password?: string; sessions_ended: true }>(`/api/v1/users/${enc(id)}/password`, {}),

  projects: (signal?: AbortSignal, onProgress?: (loaded: Project[], total: number) => void) =>
    fetchAll<Project>(projectsPath, signal, onProgress, takePrefetchedProjects(signal), afterNextPaint),
  project: (id: string) => api.get<Project>(`/api/v1/projects/${enc(id)}`),
  updateProject: (id: string, patch: { name?: string; settings?: Partial<ProjectSettings> }) =>
    api.patch<Project>(`/api/v1/projects/${enc(id)}`, patch),
  deleteProject: (id: string) => api.delete<void>(`/api/v1/projects/${enc(id)}`),
  resetProject: (id: string) => api.post<Project>(`/api/v1/projects/${enc(id)}/reset`, {}),
  audit: (id: string) =>
    api.get<{
      items: Array<{ action: string; actor: string; detail: Record<string, unknown>; created_at: number }>;
    }>(`/api/v1/projects/${enc(id)}/audit`),

  auditTrail: (query: URLSearchParams, signal?: AbortSignal) =>
    api.get<Page<AuditEntry>>(`/api/v1/audit?${query}`, { signal }),
  auditFacets: (signal?: AbortSignal) => api.get<AuditFacets>('/api/v1/audit/facets', { signal }),

  notifications: (signal?: AbortSignal) =>
    api.get<Page<Notification>>('/api/v1/notifications?limit=200', { signal }),
  alertDestinations: (signal?: AbortSignal) =>
    api.get<Page<AlertDestination>>('/api/v1/alerts/destinations', { signal }),
  /** Every rule, or with `projectId` those that cover that project (its own and the organization's). */
  alertRules: (signal?: AbortSignal, projectId?: string) =>
    api.get<Page<AlertRule>>(
      projectId ? `/api/v1/alerts/rules?project_id=${enc(projectId)}` : '/api/v1/alerts/rules',
      { signal },
    ),
  createAlertDestination: (body: Record<string, unknown>) =>
    api.post<AlertDestination>('/api/v1/alerts/destinations', body),
  updateAlertDestination: (id: string, patch: Record<string, unknown>) =>
    api.patch<AlertDestination>(`/api/v1/alerts/destinations/${enc(id)}`, patch),
  deleteAlertDestination: (id: string) => api.delete<void>(`/api/v1/alerts/destinations/${enc(id)}`),
  createAlertRule: (body: {
    project_id: string | null;
    event: AlertRule['event'];
    destination_id: string;
    params: Partial<AlertRule['params']>;
    enabled: boolean;
  }) => api.post<AlertRule>('/api/v1/alerts/rules', body),
  updateAlertRule: (
    id: string,
    patch: { enabled?: boolean; destination_id?: string; params?: Partial<AlertRule['params']> },
  ) => api.patch<AlertRule>(`/api/v1/alerts/rules/${enc(id)}`, patch),
  deleteAlertRule: (id: string) => api.delete<void>(`/api/v1/alerts/rules/${enc(id)}`),
  retryNotification: (id: string) => api.post<Notification>(`/api/v1/notifications/${enc(id)}/retry`, {}),

  runs: (projectId: string, signal?: AbortSignal) =>
    fetchAll<Run>(`/api/v1/projects/${enc(projectId)}/runs`, signal),
  run: (projectId: string, runId: string) =>
    api.get<RunDetail>(`/api/v1/projects/${enc(projectId)}/runs/${enc(runId)}`),

  recommendations: (projectId: string, signal?: AbortSignal) =>
    fetchAll<Recommendation>(`/api/v1/projects/${enc(projectId)}/recommendations`, signal),
  requestRecommendation: (projectId: string) =>
    api.post<{ id: string; state: string }>(`/api/v1/projects/${enc(projectId)}/recommendations`, {}),
  applyRecommendation: (projectId: string, recommendationId: string) =>
    api.post<Recommendation>(
      `/api/v1/projects/${enc(projectId)}/recommendations/${enc(recommendationId)}/apply`,
      {},
    ),
  approveRecommendation: (projectId: string, recommendationId: string) =>
    api.post<ApprovalResource>(
      `/api/v1/projects/${enc(projectId)}/recommendations/${enc(recommendationId)}/approve`,
      {},
    ),
  rejectRecommendation: (projectId: string, recommendationId: string) =>
    api.post<ApprovalResource>(
      `/api/v1/projects/${enc(projectId)}/recommendations/${enc(recommendationId)}/reject`,
      {},
    ),
  rollback: (projectId: string) =>
    api.post<RollbackResource>(`/api/v1/projects/${enc(projectId)}/rollback`, {}),
  appliedConfigs: (projectId: string) =>
    api.get<AppliedConfigList>(`/api/v1/projects/${enc(projectId)}/applied-configs`),
  resumeAutoApply: (projectId: string) =>
    api.post<{ resumed: true }>(`/api/v1/projects/${enc(projectId)}/resume-auto-apply`, {}),
  /** A recommendation as the file a team keeps (Terraform, or the platform's JSON), shown verbatim. */
  exportText: (projectId: string, format: ExportFormat) =>
    apiRequest<string>('GET', `/api/v1/projects/${enc(projectId)}/export?format=${format}`, {
      asText: true,
    }),
  runBilling: (projectId: string) =>
    api.get<{ items: RunBilling[] }>(`/api/v1/projects/${enc(projectId)}/billing`),
  billingAccuracy: () => api.get<BillingAccuracy>('/api/v1/billing/accuracy'),
  formFactor: (projectId: string) =>
    api.get<FormFactorAdviceResource>(`/api/v1/projects/${enc(projectId)}/form-factor`),
  decideFormFactor: (projectId: string, decision: 'approve' | 'dismiss') =>
    api.post<FormFactorAdviceResource>(`/api/v1/projects/${enc(projectId)}/form-factor/decision`, {
      decision,
    }),

  organizationSummary: (from: number, to: number) =>
    api.get<OrganizationSummary>(`/api/v1/insights/summary?from=${from}&to=${to}`),

  /** The Databricks workspaces (connections of the other platforms have their own pages). */
  workspaces: (signal?: AbortSignal) =>
    connectionEndpoints.list(signal).then((items) => items.filter(isDatabricks).map(workspaceOfConnection)),
  createWorkspace: ({ name, check_sign_in, platform: _platform, ...settings }: WorkspaceBody) =>
    connectionEndpoints
      .add<DatabricksConnectionResource>({
        platform: 'databricks',
        name,
        // a host is what Setpoint signs in to: without one the server answers which field is missing
        settings: { ...settings, host: settings.host ?? '' },
        // unsent, a workspace is stored unchecked, as `POST /workspaces` did
        check_sign_in: check_sign_in ?? false,
      } satisfies DatabricksConnectionBody)
      .then(workspaceOfConnection),
  updateWorkspace: (id: string, body: Record<string, unknown>) =>
    api.patch<Workspace>(`/api/v1/workspaces/${enc(id)}`, body),
  rotateWorkspaceAuth: (id: string, body: WorkspaceAuthBody) =>
    api.put<WorkspaceAuthResource>(`/api/v1/workspaces/${enc(id)}/auth`, body),
  deleteWorkspace: (id: string) => connectionEndpoints.remove(id),
  accessCheck: (id: string) =>
    connectionEndpoints.check(id).then((answer) => ({ results: accessLinesOf(answer) })),
  discover: (workspaceId: string) =>
    api.get<DiscoverResource>(`/api/v1/workspaces/${enc(workspaceId)}/discover`),
  importJobs: (workspaceId: string, jobIds: string[]) =>
    api.post<ImportResource>(`/api/v1/workspaces/${enc(workspaceId)}/import`, { job_ids: jobIds }),

  apiKeys: () => api.get<{ items: ApiKey[] }>('/api/v1/api-keys'),
  createApiKey: (name: string) =>
    api.post<{ id: string; secret: string; name: string }>('/api/v1/api-keys', { name }),
  revokeApiKey: (id: string) => api.delete<void>(`/api/v1/api-keys/${enc(id)}`),
  organizationSettings: () => api.get<OrganizationSettings>('/api/v1/organization/settings'),
  updateOrganizationSettings: (patch: Partial<Record<keyof OrganizationSettings, unknown>>) =>
    api.patch<OrganizationSettings>('/api/v1/organization/settings', patch),
};
