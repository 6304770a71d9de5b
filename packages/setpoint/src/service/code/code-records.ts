import type { CodeFormat } from '../../iac/code-edit.js';
import type { ForgeKind } from '../../iac/forge/forge.js';
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

/** A link as the source repository stores it: the record's fields with the forge token sealed (null: none). */
export type SourceLink = Omit<ProjectSource, 'tokenSet' | 'origin'> & { tokenCiphertext: string | null };

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

/** What following a proposal changes: its state and when it was merged or applied. */
export type ProposalChanges = Partial<Pick<CodeProposal, 'state' | 'mergedAt' | 'appliedAt'>> & {
  updatedAt: number;
};
