import {
  type CodeProposalResource,
  codeDiffQuery,
  codeDiffSchema,
  idParams,
  linkSourceBody,
  type ProjectSourceResource,
  type ProjectSourceView,
  projectSourceViewSchema,
  proposalListQuery,
  proposalListSchema,
  proposeBody,
  proposeResponseSchema,
} from '@setpoint/api-contract';
import { ForbiddenError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import { nothingToPropose, proposedMessage } from '../../service/code/code-handoff.js';
import type { CodeProposal, ProjectSource } from '../../service/code/code-records.js';
import type { ProposalService } from '../../service/code/proposal-service.js';
import type { SourceService, SourceView } from '../../service/code/source-service.js';
import { writeRoute } from '../../service/code/write-route.js';
import type { ProjectService } from '../../service/projects/project-service.js';

const bearer = [{ bearerAuth: [] }];

function presentSource(source: ProjectSource): ProjectSourceResource {
  return {
    project_id: source.projectId,
    format: source.format,
    repository: source.repository,
    path: source.path,
    branch: source.branch,
    address: source.address,
    target: source.target,
    tfvars: source.tfvars,
    forge: source.forge,
    forge_api_url: source.forgeApiUrl,
    token_set: source.tokenSet,
    api_writes: source.apiWrites,
    origin: source.origin,
    created_by: source.createdBy,
    created_at: source.createdAt,
    updated_at: source.updatedAt,
  };
}

function presentView(view: SourceView): ProjectSourceView {
  const route = writeRoute(view);
  return {
    source: view.source ? presentSource(view.source) : null,
    declared: view.declared
      ? {
          deployed_from: view.declared.deployedFrom,
          locked: view.declared.locked,
          source_tag: view.declared.sourceTag,
        }
      : null,
    tag_problem: view.tagProblem,
    route: route.kind,
    route_reason: route.kind === 'refuse' ? route.reason : null,
  };
}

export function presentProposal(proposal: CodeProposal): CodeProposalResource {
  return {
    id: proposal.id,
    project_id: proposal.projectId,
    recommendation_id: proposal.recommendationId,
    state: proposal.state,
    repository: proposal.repository,
    branch: proposal.branch,
    base_branch: proposal.baseBranch,
    commit_sha: proposal.commitSha,
    forge: proposal.forge,
    number: proposal.number,
    url: proposal.url,
    files: proposal.files,
    diff: proposal.diff,
    created_by: proposal.createdBy,
    created_at: proposal.createdAt,
    updated_at: proposal.updatedAt,
    merged_at: proposal.mergedAt,
    applied_at: proposal.appliedAt,
  };
}

/**
 * A project's code: where its configuration lives (linking holds a forge token, so admins only), the diff
 * a recommendation makes there, and the proposals (branch + pull or merge request) Setpoint opened.
 */
export function codeRoutes(deps: {
  projects: Pick<ProjectService, 'assertExists'>;
  sources: SourceService;
  proposals: ProposalService;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/projects/:id/source',
      {
        schema: {
          tags: ['code'],
          summary: "Where the project's configuration lives in code, and where a change goes",
          security: bearer,
          params: idParams,
          response: { 200: projectSourceViewSchema },
        },
      },
      async (request) => {
        await deps.projects.assertExists(request.params.id);
        return presentView(await deps.sources.view(request.params.id));
      },
    );

    app.put(
      '/api/v1/projects/:id/source',
      {
        schema: {
          tags: ['code'],
          summary: "Link the project's code: repository, file, forge and token (admins)",
          security: bearer,
          params: idParams,
          body: linkSourceBody,
          response: { 200: projectSourceViewSchema },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        if (principal.role !== 'admin') throw new ForbiddenError("only admins may link a project's code");
        await deps.projects.assertExists(request.params.id);
        const body = request.body;
        await deps.sources.link(
          request.params.id,
          {
            repository: body.repository,
            path: body.path,
            format: body.format,
            branch: body.branch,
            address: body.address,
            target: body.target,
            tfvars: body.tfvars,
            forge: body.forge,
            forgeApiUrl: body.forge_api_url,
            token: body.token,
            apiWrites: body.api_writes,
          },
          principal.actor,
        );
        return presentView(await deps.sources.view(request.params.id));
      },
    );

    app.delete(
      '/api/v1/projects/:id/source',
      {
        schema: {
          tags: ['code'],
          summary: "Forget the project's linked code (its forge token with it)",
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (principal.role !== 'admin') throw new ForbiddenError("only admins may unlink a project's code");
        await deps.projects.assertExists(request.params.id);
        await deps.sources.unlink(request.params.id, principal.actor);
        return reply.status(204).send();
      },
    );

    app.get(
      '/api/v1/projects/:id/iac/diff',
      {
        schema: {
          tags: ['code'],
          summary: "The unified diff a recommendation (default: the latest) makes in the project's code",
          security: bearer,
          params: idParams,
          querystring: codeDiffQuery,
          response: { 200: codeDiffSchema },
        },
      },
      async (request) => {
        const result = await deps.proposals.diff(request.params.id, request.query.recommendation);
        return {
          recommendation_id: result.recommendationId,
          format: result.source.format,
          repository: result.source.repository,
          path: result.source.path,
          diff: result.diff,
          files: result.files,
          notes: result.notes,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/iac/proposals',
      {
        schema: {
          tags: ['code'],
          summary: 'Propose a recommendation in the code: a commit on its branch and a pull or merge request',
          security: bearer,
          params: idParams,
          body: proposeBody,
          response: { 200: proposeResponseSchema, 201: proposeResponseSchema },
        },
      },
      async (request, reply) => {
        const proposal = await deps.proposals.propose(request.params.id, {
          recommendationId: request.body.recommendation_id,
          actor: principalOf(request).actor,
        });
        if (!proposal) return reply.status(200).send({ proposal: null, message: nothingToPropose });
        return reply
          .status(201)
          .send({ proposal: presentProposal(proposal), message: proposedMessage(proposal) });
      },
    );

    app.get(
      '/api/v1/projects/:id/iac/proposals',
      {
        schema: {
          tags: ['code'],
          summary: 'The proposals made in the project’s code, newest first',
          security: bearer,
          params: idParams,
          querystring: proposalListQuery,
          response: { 200: proposalListSchema },
        },
      },
      async (request) => {
        if (request.query.refresh === 'true') await deps.proposals.refresh(request.params.id);
        return { items: (await deps.proposals.list(request.params.id)).map(presentProposal) };
      },
    );
  };
}
