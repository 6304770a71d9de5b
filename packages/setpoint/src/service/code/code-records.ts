import type { Selectable } from 'kysely';
import type { CodeFormat } from '../../iac/code-edit.js';
import type { ForgeKind } from '../../iac/forge/forge.js';
import type { CodeProposalsTable, ProjectSourcesTable } from '../../store/database-schema.js';
import { parseJsonColumn } from '../../store/json-column.js';
import type { ClusterConfiguration } from '../recommender/recommender.js';

/** Where a project's configuration lives in code, as linked (or read from the job's `setpoint:source` tag). */
export interface ProjectSource {
  projectId: string;
  format: CodeFormat;
  repository: string;
  path: string;
  /** The branch proposals merge into; null: the remote's default branch. */
  branch: string | null;
  /** Which resource, bundle job or DAG task, when the file holds several. */
  address: string | null;
  /** The bundle target that is deployed (its overrides win). */
  target: string | null;
  /** The `.tfvars` file the team applies with. */
  tfvars: string | null;
  forge: ForgeKind;
  forgeApiUrl: string | null;
  tokenSet: boolean;
  /** The team lets Setpoint also write the job through the platform's API (the code then drifts). */
  apiWrites: boolean;
  /** `link`: set by a user; `tag`: read from the job's `setpoint:source` tag. */
  origin: 'link' | 'tag';
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

export function toProjectSource(row: Selectable<ProjectSourcesTable>): ProjectSource {
  return {
    projectId: row.project_id,
    format: row.format as CodeFormat,
    repository: row.repository,
    path: row.path,
    branch: row.branch,
    address: row.address,
    target: row.target,
    tfvars: row.tfvars,
    forge: row.forge as ForgeKind,
    forgeApiUrl: row.forge_api_url,
    tokenSet: row.token_ciphertext !== null,
    apiWrites: row.api_writes === 1,
    origin: 'link',
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * `open`: waiting for review; `merged`: merged, not yet seen deployed; `applied`: the platform runs it;
 * `closed`: closed without merging; `superseded`: a newer recommendation replaced it.
 */
export type ProposalState = 'open' | 'merged' | 'applied' | 'closed' | 'superseded';

export interface CodeProposal {
  id: string;
  projectId: string;
  recommendationId: string;
  state: ProposalState;
  repository: string;
  branch: string;
  baseBranch: string;
  commitSha: string;
  forge: ForgeKind;
  /** The pull request number or merge request iid; null when the forge is `none` (a branch only). */
  number: number | null;
  url: string | null;
  configuration: ClusterConfiguration;
  files: string[];
  diff: string;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
  mergedAt: number | null;
  appliedAt: number | null;
}

export function toCodeProposal(row: Selectable<CodeProposalsTable>): CodeProposal {
  return {
    id: row.id,
    projectId: row.project_id,
    recommendationId: row.recommendation_id,
    state: row.state as ProposalState,
    repository: row.repository,
    branch: row.branch,
    baseBranch: row.base_branch,
    commitSha: row.commit_sha,
    forge: row.forge as ForgeKind,
    number: row.number,
    url: row.url,
    configuration: parseJsonColumn<ClusterConfiguration>(row.configuration) ?? {},
    files: parseJsonColumn<string[]>(row.files) ?? [],
    diff: row.diff,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mergedAt: row.merged_at,
    appliedAt: row.applied_at,
  };
}
