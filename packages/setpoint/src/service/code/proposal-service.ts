import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { EditOutcome } from '../../iac/code-edit.js';
import { directoryCodeTree } from '../../iac/directory-code-tree.js';
import { editCode } from '../../iac/edit-code.js';
import { type Forge, type ForgeFetch, remoteLocation } from '../../iac/forge/forge.js';
import { githubForge } from '../../iac/forge/github-forge.js';
import { gitlabForge } from '../../iac/forge/gitlab-forge.js';
import { GitCheckout, type GitCredentials, remoteBranchSha } from '../../iac/git/git-client.js';
import { newId } from '../../store/ids.js';
import type { ApplyService } from '../apply/apply-service.js';
import { decideAutoApply } from '../apply/auto-apply-policy.js';
import { oneAtATimeByKey } from '../one-at-a-time.js';
import type { Project, ProjectService } from '../projects/project-service.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import type { RunService } from '../runs/run-service.js';
import type { CodeProposal, ProjectSource } from './code-records.js';
import type { PlatformCode } from './platform-code.js';
import { type BeforeFigures, proposalBody, proposalTitle } from './proposal-description.js';
import type { ProposalRepository } from './proposal-repository.js';
import { type SourceService, tokenUsername } from './source-service.js';

export interface CodeDiff {
  recommendationId: string;
  source: ProjectSource;
  /** The unified diff (`git diff`); empty when the code already says what the recommendation says. */
  diff: string;
  files: string[];
  notes: string[];
}

export interface ProposalServiceDependencies {
  projects: Pick<ProjectService, 'get'>;
  recommendations: Pick<RecommendationService, 'get' | 'latest'>;
  runs: Pick<RunService, 'get'>;
  sources: SourceService;
  proposals: ProposalRepository;
  /** The code mapping of the project's platform; null when it has none. */
  code(projectId: string): Promise<PlatformCode | null>;
  /** Calls to a forge's API go through the outbound guard. */
  fetch: ForgeFetch;
  scratchDir: string;
  /** A merged proposal the platform runs, into the apply core's history (`ApplyService.recordDeployed`). */
  recordApplied(entry: Parameters<ApplyService['recordDeployed']>[0]): Promise<unknown>;
  /** The dashboard's address, for the link in a pull request. */
  publicUrl(): string;
  gitTimeoutMs?: number;
}

/** Who proposes when auto-apply does, in the audit trail and on the proposal. */
export const autoProposer = 'auto-apply';

/** The branch a project's proposals live on: one per project, updated while its proposal is open. */
export const proposalBranch = (projectId: string) => `setpoint/${projectId}`;

/**
 * Proposals: a recommendation written into the project's code (a shallow clone of the linked repository,
 * the format's editor), committed on the project's branch and offered as a pull or merge request; then
 * followed until it is merged and the platform runs it, when it is recorded as applied.
 */
export function createProposalService(deps: ProposalServiceDependencies) {
  async function recommendationOf(
    projectId: string,
    recommendationId?: string,
  ): Promise<RecommendationRecord> {
    const rec = recommendationId
      ? await deps.recommendations.get(projectId, recommendationId)
      : await deps.recommendations.latest(projectId);
    if (rec.state !== 'SUCCESS' || !rec.configuration)
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${rec.id} is ${rec.state}; only a SUCCESS recommendation can be proposed`,
      );
    return rec;
  }

  async function sourceOf(project: Project): Promise<ProjectSource> {
    const source = await deps.sources.effective(project.id);
    if (!source)
      throw new ConflictError(
        'SOURCE_NOT_LINKED',
        `project ${project.id} has no linked code: link it with \`setpoint projects link-source ${project.id} --repo <git url> --path <file>\` or tag the job setpoint:source`,
      );
    return source;
  }

  async function credentialsOf(source: ProjectSource): Promise<GitCredentials | undefined> {
    const token = source.origin === 'link' ? await deps.sources.token(source.projectId) : null;
    return token ? { username: tokenUsername(source.forge), token } : undefined;
  }

  /** The recommendation written into a fresh clone: the checkout (the caller disposes of it) and the outcome. */
  async function prepare(projectId: string, recommendationId?: string) {
    const project = await deps.projects.get(projectId);
    const rec = await recommendationOf(projectId, recommendationId);
    const source = await sourceOf(project);
    const code = await deps.code(projectId);
    if (!code)
      throw new ConflictError(
        'NO_CODE_MAPPING',
        `the platform of project ${projectId} does not map clusters to code`,
      );
    const edits = await code.edits(projectId, rec.configuration ?? {});
    const credentials = await credentialsOf(source);
    const checkout = await GitCheckout.clone(source.repository, source.branch ?? undefined, deps.scratchDir, {
      credentials,
      timeoutMs: deps.gitTimeoutMs,
    });
    try {
      const outcome: EditOutcome =
        rec.decision?.action === 'keep'
          ? { changes: [], notes: [] }
          : await editCode(directoryCodeTree(checkout.directory), source, edits);
      for (const change of outcome.changes)
        await writeFile(path.join(checkout.directory, change.path), change.after);
      const diff = outcome.changes.length > 0 ? await checkout.diff() : '';
      return { project, rec, source, checkout, outcome, diff, credentials };
    } catch (error) {
      await checkout.dispose();
      throw error;
    }
  }

  function forgeOf(source: ProjectSource, token: string | undefined): Forge | null {
    if (source.forge === 'none') return null;
    if (!token || !source.forgeApiUrl)
      throw new ConflictError(
        'FORGE_TOKEN_MISSING',
        `a ${source.forge} proposal needs a token: link the source again with --token-env (it is stored encrypted)`,
      );
    const repository = remoteLocation(source.repository)?.path;
    if (!repository)
      throw new ConflictError(
        'FORGE_NEEDS_URL',
        `a ${source.forge} proposal needs the repository's URL, not a local path`,
      );
    const connection = { apiUrl: source.forgeApiUrl, repository, token, fetch: deps.fetch };
    return source.forge === 'github' ? githubForge(connection) : gitlabForge(connection);
  }

  async function beforeFigures(project: Project, rec: RecommendationRecord): Promise<BeforeFigures | null> {
    if (!rec.basedOnRunId) return null;
    const run = await deps.runs.get(project.id, rec.basedOnRunId).catch(() => null);
    if (!run) return null;
    const durationMs =
      run.profileSummary?.durationMs ??
      (run.startedAt !== null && run.endedAt !== null ? run.endedAt - run.startedAt : null);
    return {
      runId: run.externalRunId,
      runtimeMinutes: durationMs === null ? null : durationMs / 60_000,
      costUsd: run.cost?.totalUsd ?? null,
    };
  }

  /** The commit on the remote branch is Setpoint's own (any earlier proposal's), or there is none. */
  async function leaseOf(project: Project, source: ProjectSource, credentials: GitCredentials | undefined) {
    const branch = proposalBranch(project.id);
    const remote = await remoteBranchSha(source.repository, branch, {
      credentials,
      timeoutMs: deps.gitTimeoutMs,
    });
    if (remote === null) return null;
    const ours = (await deps.proposals.list(project.id)).some((proposal) => proposal.commitSha === remote);
    if (!ours)
      throw new ConflictError(
        'PROPOSAL_BRANCH_CHANGED',
        `the branch ${branch} has commits Setpoint did not push; merge or close that proposal (or delete the branch) before Setpoint proposes again`,
      );
    return remote;
  }

  const proposing = oneAtATimeByKey();

  /** Commits the recommendation on the project's branch and opens or updates its pull or merge request. */
  async function proposeNow(
    projectId: string,
    options: { recommendationId?: string | undefined; actor: string },
  ): Promise<CodeProposal | null> {
    const prepared = await prepare(projectId, options.recommendationId);
    const { project, rec, source, checkout, outcome, credentials } = prepared;
    try {
      if (outcome.changes.length === 0) return null;
      const forge = forgeOf(source, credentials?.token);
      const branch = proposalBranch(project.id);
      const title = proposalTitle(project.name, rec);
      const body = proposalBody({
        projectName: project.name,
        projectUrl: `${deps.publicUrl().replace(/\/$/, '')}/projects/${encodeURIComponent(project.id)}`,
        recommendation: rec,
        before: await beforeFigures(project, rec),
        outcome,
      });
      const lease = await leaseOf(project, source, credentials);
      const sha = await checkout.pushBranch(branch, `${title}\n\nRecommendation ${rec.id}.`, lease);
      const review = forge
        ? await (async () => {
            const open = await forge.findOpen(branch, checkout.baseBranch);
            return open
              ? forge.update(open.number, { title, body })
              : forge.open({ title, body, head: branch, base: checkout.baseBranch });
          })()
        : null;
      const now = Date.now();
      const pending = await deps.proposals.pending(project.id);
      const id = newId('prop');
      await deps.proposals.insert(
        {
          id,
          projectId: project.id,
          recommendationId: rec.id,
          state: 'open',
          repository: source.repository,
          branch,
          baseBranch: checkout.baseBranch,
          commitSha: sha,
          forge: source.forge,
          number: review?.number ?? null,
          url: review?.url ?? null,
          configuration: rec.configuration ?? {},
          files: outcome.changes.map((change) => change.path),
          diff: prepared.diff,
          createdBy: options.actor,
          createdAt: now,
          updatedAt: now,
          mergedAt: null,
          appliedAt: null,
        },
        pending.map((proposal) => proposal.id),
        {
          entity: 'project',
          entityId: project.id,
          action: 'propose',
          actor: options.actor,
          detail: {
            recommendation: rec.id,
            branch,
            url: review?.url ?? null,
            files: outcome.changes.map((change) => change.path),
          },
        },
      );
      return (await deps.proposals.find(project.id, id)) as CodeProposal;
    } finally {
      await checkout.dispose();
    }
  }

  const service = {
    async diff(projectId: string, recommendationId?: string): Promise<CodeDiff> {
      const prepared = await prepare(projectId, recommendationId);
      await prepared.checkout.dispose();
      return {
        recommendationId: prepared.rec.id,
        source: prepared.source,
        diff: prepared.diff,
        files: prepared.outcome.changes.map((change) => change.path),
        notes: prepared.outcome.notes,
      };
    },

    /**
     * Commits the recommendation on the project's branch and opens (or updates) its pull or merge request.
     * Null when the code already says what the recommendation says (nothing to review).
     */
    async propose(
      projectId: string,
      options: { recommendationId?: string | undefined; actor: string },
    ): Promise<CodeProposal | null> {
      // a person's proposal and auto-apply's for one project, at once, would each find the other's push
      // on the project's branch and refuse it as not Setpoint's: they take turns instead
      return proposing(projectId, () => proposeNow(projectId, options));
    },

    /**
     * Auto-apply for a project whose code is linked: open or update the proposal, when the project's
     * auto-apply and optimization window allow (a person still merges it, so no weekly cap applies).
     */
    async proposeAutomatically(
      projectId: string,
      recommendationId: string,
    ): Promise<{ proposal: CodeProposal | null; reason: string }> {
      const project = await deps.projects.get(projectId);
      const decision = decideAutoApply({
        settings: project.settings,
        paused: false,
        pauseReason: null,
        history: [],
        maxChangesPerWeek: Number.POSITIVE_INFINITY,
        now: Date.now(),
      });
      if (!decision.apply) return { proposal: null, reason: decision.reason };
      const rec = await deps.recommendations.get(projectId, recommendationId);
      if (rec.decision?.action === 'keep')
        return { proposal: null, reason: 'the recommendation keeps the cluster' };
      const proposal = await service.propose(projectId, { recommendationId, actor: autoProposer });
      return { proposal, reason: proposal ? 'proposed' : 'the code already holds the recommendation' };
    },

    async list(projectId: string): Promise<CodeProposal[]> {
      await deps.projects.get(projectId);
      return deps.proposals.list(projectId);
    },

    async get(projectId: string, id: string): Promise<CodeProposal> {
      const proposal = await deps.proposals.find(projectId, id);
      if (!proposal)
        throw new NotFoundError('PROPOSAL_NOT_FOUND', `project ${projectId} has no proposal ${id}`);
      return proposal;
    },

    /**
     * Follows the project's pending proposals: merged or closed on the forge, and applied once the platform
     * runs the configuration a merged one carries (a branch-only proposal: once the platform runs it).
     * Returns the proposals that became applied.
     */
    async refresh(projectId: string): Promise<CodeProposal[]> {
      const applied: CodeProposal[] = [];
      const pending = await deps.proposals.pending(projectId);
      if (pending.length === 0) return applied;
      const source = await deps.sources.effective(projectId);
      const code = await deps.code(projectId);
      for (const proposal of pending) {
        let state = proposal.state;
        const now = Date.now();
        if (state === 'open' && proposal.forge !== 'none' && proposal.number !== null && source) {
          const forge = forgeOf(source, (await credentialsOf(source))?.token);
          const review = await forge?.get(proposal.number);
          if (review?.state === 'merged') {
            state = 'merged';
            await deps.proposals.update(proposal.id, { state, mergedAt: now, updatedAt: now });
          } else if (review?.state === 'closed') {
            await deps.proposals.update(
              proposal.id,
              { state: 'closed', updatedAt: now },
              {
                entity: 'project',
                entityId: projectId,
                action: 'proposal-closed',
                actor: 'forge',
                detail: { proposal: proposal.id },
              },
            );
            continue;
          }
        }
        const deployable = state === 'merged' || (state === 'open' && proposal.forge === 'none');
        if (!deployable || !code) continue;
        const deployed = await code.deployed(projectId, proposal.configuration);
        if (!deployed) continue;
        // the apply history first: a proposal left merged by a stop is recorded there once, when seen again
        await deps.recordApplied({
          projectId,
          recommendationId: proposal.recommendationId,
          kind: proposal.createdBy === autoProposer ? 'auto-apply' : 'apply',
          configuration: deployed,
          actor: proposal.createdBy,
          reason: `proposed in ${proposal.url ?? `${proposal.repository} ${proposal.branch}`}, merged and deployed`,
          since: proposal.createdAt,
        });
        await deps.proposals.update(
          proposal.id,
          { state: 'applied', appliedAt: now, updatedAt: now, mergedAt: proposal.mergedAt ?? now },
          {
            entity: 'project',
            entityId: projectId,
            action: 'proposal-applied',
            actor: 'deploy',
            detail: { proposal: proposal.id, recommendation: proposal.recommendationId, url: proposal.url },
          },
        );
        const updated = await deps.proposals.find(projectId, proposal.id);
        if (updated) applied.push(updated);
      }
      return applied;
    },
  };
  return service;
}

export type ProposalService = ReturnType<typeof createProposalService>;
