import {
  idParams,
  workspaceBody,
  workspaceListSchema,
  workspacePatchBody,
  workspaceSchema,
} from '@setpoint/api-contract';
import { UpstreamError, ValidationError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { SignInLine, SignInTarget } from '../../platform-api/platform.js';
import { principalOf } from '../../service/auth/principal.js';
import type { WorkspaceInput, WorkspaceService } from '../../service/workspaces/workspace-service.js';
import { presentWorkspace } from './presenters.js';

const bearer = [{ bearerAuth: [] }];
/** The platforms these routes create and edit; other platforms' workspaces have their own routes. */
const routePlatforms: readonly string[] = workspaceBody.shape.platform.unwrap().options;

function toInput(body: z.infer<typeof workspacePatchBody>): Partial<WorkspaceInput> {
  return {
    name: body.name,
    platform: body.platform,
    cloud: body.cloud,
    region: body.region,
    host: body.host,
    planType: body.plan_type,
    computeType: body.compute_type,
    credentials: body.credentials,
    webhookCredentials: body.webhook_credentials,
  };
}

/** The sign-in check of the workspace's platform, or undefined when the platform has none. */
export type SignInCheckOf = (platform: string) => ((target: SignInTarget) => Promise<SignInLine>) | undefined;

/** Nothing is registered when the workspace does not answer or refuses its credentials: the error says which. */
function refuseFailedSignIn(input: WorkspaceInput, line: SignInLine): void {
  if (line.ok) return;
  const reason = `${input.host}: ${line.check} failed: ${line.detail}${line.fix ? `; fix: ${line.fix}` : ''}; nothing was registered`;
  const details = { check: line.check, detail: line.detail, ...(line.fix && { fix: line.fix }) };
  if (!line.reachable) throw new UpstreamError('WORKSPACE_UNREACHABLE', reason, { details });
  throw new ValidationError('WORKSPACE_SIGN_IN_REFUSED', reason, { details });
}

export function workspaceRoutes(
  workspaces: WorkspaceService,
  signInCheckOf: SignInCheckOf = () => undefined,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/v1/workspaces',
      {
        schema: {
          deprecated: true,
          tags: ['workspaces'],
          summary:
            'Create a Databricks workspace (secrets are write-only); deprecated: POST /api/v1/connections',
          security: bearer,
          body: workspaceBody,
          response: { 201: workspaceSchema },
        },
      },
      async (request, reply) => {
        const { name, platform, cloud, check_sign_in: checkSignIn } = request.body;
        const signIn = checkSignIn ? signInCheckOf(platform) : undefined;
        const workspace = await workspaces.create(
          { ...toInput(request.body), name, platform, cloud },
          principalOf(request).actor,
          signIn &&
            (async (input) => {
              if (!input.host)
                throw new ValidationError('WORKSPACE_NO_HOST', 'check_sign_in needs the workspace host');
              refuseFailedSignIn(
                input,
                await signIn({ host: input.host, credentials: input.credentials ?? null }),
              );
            }),
        );
        return reply.status(201).send(presentWorkspace(workspace));
      },
    );

    app.get(
      '/api/v1/workspaces',
      {
        schema: {
          tags: ['workspaces'],
          summary: 'List workspaces',
          security: bearer,
          response: { 200: workspaceListSchema },
        },
      },
      async () => ({ items: (await workspaces.list()).map(presentWorkspace) }),
    );

    app.get(
      '/api/v1/workspaces/:id',
      {
        schema: {
          tags: ['workspaces'],
          summary: 'Get a workspace',
          security: bearer,
          params: idParams,
          response: { 200: workspaceSchema },
        },
      },
      async (request) => presentWorkspace(await workspaces.get(request.params.id)),
    );

    app.patch(
      '/api/v1/workspaces/:id',
      {
        schema: {
          tags: ['workspaces'],
          summary:
            'Update a workspace; send credentials to replace them, null to clear. Changing the host or S3 endpoint is admin-only and clears stored secrets',
          security: bearer,
          params: idParams,
          body: workspacePatchBody,
          response: { 200: workspaceSchema },
        },
      },
      async (request) => {
        const current = await workspaces.get(request.params.id);
        // a workspace of another platform (an EMR account) keeps its settings under that platform's rules
        // and routes: here it may only be renamed
        const others = Object.entries(request.body).filter(
          ([field, value]) => field !== 'name' && value !== undefined,
        );
        if (!routePlatforms.includes(current.platform) && others.length > 0) {
          throw new ValidationError(
            'WORKSPACE_MANAGED_BY_PLATFORM',
            `workspace ${current.id} is a ${current.platform} workspace: only its name can be changed here (${others.map(([field]) => field).join(', ')} through its own routes)`,
          );
        }
        return presentWorkspace(
          await workspaces.update(request.params.id, toInput(request.body), principalOf(request)),
        );
      },
    );

    app.delete(
      '/api/v1/workspaces/:id',
      {
        schema: {
          tags: ['workspaces'],
          summary:
            'Delete a workspace and its credentials: its projects stay with their runs and recommendations, unlinked (no collection, nothing applied); its jobs in Databricks are not changed',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await workspaces.remove(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );
  };
}
