import type {
  AppliedConfigResource as AppliedConfig,
  ProjectResource as Project,
  RecommendationResource as Recommendation,
  RunResource as Run,
} from '@setpoint/api-contract';
import type { RunBillingResource as RunBilling } from '@setpoint/api-contract/databricks';
import { ApiError } from '../../api/client.js';
import { codeEndpoints } from '../../api/code-endpoints.js';
import { connectionEndpoints } from '../../api/connection-endpoints.js';
import { endpoints } from '../../api/endpoints.js';
import type { ProjectCode } from './code-source.js';

export interface ProjectData {
  project: Project;
  /** Oldest first. */
  runs: Run[];
  /** Newest first; null when this server has no recommendations route. */
  recommendations: Recommendation[] | null;
  /** Clusters written into the job, oldest first; null when the server keeps no such history. */
  appliedConfigs: AppliedConfig[] | null;
  /**
   * Who writes the project's cluster: Setpoint, or the launcher that takes a recommendation at each launch
   * (nothing to roll back); null when the server does not say.
   */
  appliedWriter: 'setpoint' | 'launcher' | null;
  /** Why auto-apply is paused (a revert, an edit outside Setpoint); null when it is not. */
  autoApplyPause: { reason: string | null } | null;
  /** DBU cost estimated and billed per run, by run id; empty when the workspace reads no system tables. */
  billing: Map<string, RunBilling>;
  /** The platform of the project's workspace (its platform tabs); null without a workspace. */
  platform: string | null;
  /** Where the configuration lives in code and the proposals made there; null when no code is known. */
  code: ProjectCode | null;
}

const startOf = (run: Run) => run.started_at ?? run.created_at;

/** The platform of the project's connection; null without one, or when it was removed since. */
async function platformOf(project: Project): Promise<string | null> {
  if (!project.workspace_id) return null;
  return connectionEndpoints.get(project.workspace_id).then(
    (connection) => connection.platform,
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    },
  );
}

/** The project's code, when it has any Setpoint knows of (linked, tagged, or deployed from a bundle). */
async function codeOf(id: string): Promise<ProjectCode | null> {
  const view = await codeEndpoints.source(id).catch((error: unknown) => {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500) return null;
    throw error;
  });
  if (!view || (view.source === null && view.route === 'api')) return null;
  const proposals = view.source ? (await codeEndpoints.proposals(id)).items : [];
  return { view, proposals };
}

export async function loadProjectData(id: string, signal: AbortSignal): Promise<ProjectData> {
  const [{ project, platform }, runs, recommendations, appliedConfigs, billing, code] = await Promise.all([
    endpoints.project(id).then(async (project) => ({ project, platform: await platformOf(project) })),
    endpoints.runs(id, signal),
    endpoints.recommendations(id, signal).catch((error: unknown) => {
      if (error instanceof ApiError && error.notAvailable) return null;
      throw error;
    }),
    endpoints.appliedConfigs(id).then(
      (answer) => answer,
      // The history is a nicety: the tab falls back to what the recommendations say was applied.
      (error: unknown) => {
        if (error instanceof ApiError && error.status >= 400 && error.status < 500) return null;
        throw error;
      },
    ),
    endpoints.runBilling(id).then(
      (answer) => answer.items,
      (error: unknown) => {
        if (error instanceof ApiError && error.status >= 400 && error.status < 500) return [];
        throw error;
      },
    ),
    codeOf(id),
  ]);
  return {
    project,
    runs: [...runs].sort((a, b) => startOf(a) - startOf(b)),
    recommendations: recommendations
      ? [...recommendations].sort((a, b) => b.created_at - a.created_at)
      : null,
    appliedConfigs: appliedConfigs?.items ?? null,
    appliedWriter: appliedConfigs?.writer ?? null,
    autoApplyPause: appliedConfigs?.auto_apply_paused ? { reason: appliedConfigs.pause_reason } : null,
    billing: new Map(billing.map((row) => [row.run_id, row])),
    platform,
    code,
  };
}
