import {
  type ApprovalResource,
  idParams,
  type ProjectSettings,
  type ProjectSummaryWire,
  projectAuditSchema,
  projectCreateBody,
  projectListQuery,
  projectListSchema,
  projectPatchBody,
  projectSchema,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import type { Project, ProjectService } from '../../service/projects/project-service.js';
import { presentProject } from './presenters.js';

const bearer = [{ bearerAuth: [] }];

export type ProjectSummaries = (projects: Project[]) => Promise<Map<string, ProjectSummaryWire>>;
/** What waits for a person's approval in each project (apply mode approve-learning). */
export type AwaitingApprovals = (projectIds: readonly string[]) => Promise<Map<string, ApprovalResource>>;

export function projectRoutes(
  projects: ProjectService,
  summaries?: ProjectSummaries,
  awaiting?: AwaitingApprovals,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/v1/projects',
      {
        schema: {
          tags: ['projects'],
          summary: 'Create a project',
          security: bearer,
          body: projectCreateBody,
          response: { 201: projectSchema },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const project = await projects.create(
          {
            name: body.name,
            description: body.description,
            workspaceId: body.workspace_id,
            jobId: body.job_id,
            clusterKey: body.cluster_key,
            appId: body.app_id,
            settings: body.settings as Partial<ProjectSettings> | undefined,
          },
          principalOf(request).actor,
        );
        return reply.status(201).send(presentProject(project));
      },
    );

    app.get(
      '/api/v1/projects',
      {
        schema: {
          tags: ['projects'],
          summary: 'List projects (filter by name, workspace, phase; sort; paginate)',
          security: bearer,
          querystring: projectListQuery,
          response: { 200: projectListSchema },
        },
      },
      async (request) => {
        const query = request.query;
        const { items, total } = await projects.list({
          search: query.q,
          workspaceId: query.workspace_id,
          appId: query.app_id,
          phase: query.phase,
          sort: query.sort,
          limit: query.limit,
          offset: query.offset,
        });
        const [figures, waiting] = await Promise.all([
          summaries ? summaries(items) : undefined,
          awaiting ? awaiting(items.map((project) => project.id)) : undefined,
        ]);
        return {
          items: items.map((project) => {
            const summary = figures?.get(project.id);
            const shown = summary ? { ...presentProject(project), summary } : presentProject(project);
            return waiting ? { ...shown, awaiting_approval: waiting.get(project.id) ?? null } : shown;
          }),
          total,
          limit: query.limit,
          offset: query.offset,
        };
      },
    );

    app.get(
      '/api/v1/projects/:id',
      {
        schema: {
          tags: ['projects'],
          summary: 'Get a project',
          security: bearer,
          params: idParams,
          response: { 200: projectSchema },
        },
      },
      async (request) => {
        const project = presentProject(await projects.get(request.params.id));
        if (!awaiting) return project;
        return { ...project, awaiting_approval: (await awaiting([project.id])).get(project.id) ?? null };
      },
    );

    app.patch(
      '/api/v1/projects/:id',
      {
        schema: {
          tags: ['projects'],
          summary: 'Update a project; settings are merged field by field',
          security: bearer,
          params: idParams,
          body: projectPatchBody,
          response: { 200: projectSchema },
        },
      },
      async (request) => {
        const body = request.body;
        const project = await projects.update(
          request.params.id,
          {
            name: body.name,
            description: body.description,
            workspaceId: body.workspace_id,
            jobId: body.job_id,
            clusterKey: body.cluster_key,
            appId: body.app_id,
            settings: body.settings as Partial<ProjectSettings> | undefined,
          },
          principalOf(request).actor,
        );
        const decidedAgain = project.decidedAgain
          ? { recommendation_id: project.decidedAgain.recommendationId }
          : null;
        return { ...presentProject(project), decided_again: decidedAgain };
      },
    );

    app.delete(
      '/api/v1/projects/:id',
      {
        schema: {
          tags: ['projects'],
          summary: 'Delete a project, its runs and recommendations',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await projects.remove(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );

    app.post(
      '/api/v1/projects/:id/reset',
      {
        schema: {
          tags: ['projects'],
          summary: 'Forget what was learned: back to LEARNING; runs stay as history but stop teaching',
          security: bearer,
          params: idParams,
          response: { 200: projectSchema },
        },
      },
      async (request) => presentProject(await projects.reset(request.params.id, principalOf(request).actor)),
    );

    app.get(
      '/api/v1/projects/:id/audit',
      {
        schema: {
          tags: ['projects'],
          summary: 'Audit log of the project',
          security: bearer,
          params: idParams,
          response: { 200: projectAuditSchema },
        },
      },
      async (request) => {
        await projects.get(request.params.id);
        const entries = await projects.audit(request.params.id);
        return {
          items: entries.map((entry) => ({
            action: entry.action,
            actor: entry.actor,
            detail: entry.detail,
            created_at: entry.createdAt,
          })),
        };
      },
    );
  };
}
