import type {
  CodeDiffResource,
  CodeProposalResource,
  ProjectSourceView,
  ProposeResponse,
  RecommendationResource,
} from '@setpoint/api-contract';
import { api } from './client.js';

const enc = encodeURIComponent;

/** The dashboard's client of a project's code: where its configuration lives, the diff and the proposals. */
export const codeEndpoints = {
  source: (projectId: string) => api.get<ProjectSourceView>(`/api/v1/projects/${enc(projectId)}/source`),
  diff: (projectId: string, recommendationId: string) =>
    api.get<CodeDiffResource>(
      `/api/v1/projects/${enc(projectId)}/iac/diff?recommendation=${enc(recommendationId)}`,
    ),
  /** `refresh` asks the forge and the platform first (merged, closed, deployed since). */
  proposals: (projectId: string, refresh = false) =>
    api.get<{ items: CodeProposalResource[] }>(
      `/api/v1/projects/${enc(projectId)}/iac/proposals${refresh ? '?refresh=true' : ''}`,
    ),
  /** Applying a recommendation of a code-managed project opens or updates its proposal. */
  propose: (projectId: string, recommendationId: string) =>
    api.post<ProposeResponse | RecommendationResource>(
      `/api/v1/projects/${enc(projectId)}/recommendations/${enc(recommendationId)}/apply`,
      {},
    ),
};
