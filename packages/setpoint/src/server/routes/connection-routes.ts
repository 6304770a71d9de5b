import {
  type ConnectionResource,
  connectionBody,
  connectionCheckBody,
  connectionCheckSchema,
  connectionListSchema,
  connectionPlatformsSchema,
  connectionSchema,
  idParams,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import type { Connection, ConnectionService } from '../../service/connections/connection-service.js';

const bearer = [{ bearerAuth: [] }];
const tags = ['connections'];

function presentConnection(connection: Connection): ConnectionResource {
  return {
    id: connection.id,
    name: connection.name,
    platform: connection.platform,
    settings: connection.settings,
    created_at: connection.createdAt,
    updated_at: connection.updatedAt,
  };
}

/** One connect route set for every platform (`docs/api.md`, tag `connections`). */
export function connectionRoutes(connections: ConnectionService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/connections/platforms',
      {
        schema: {
          tags,
          summary: 'The platforms accounts can be connected for',
          security: bearer,
          response: { 200: connectionPlatformsSchema },
        },
      },
      async () => ({ platforms: [...connections.platforms()] }),
    );

    app.post(
      '/api/v1/connections',
      {
        schema: {
          tags,
          summary:
            "Connect an account of a platform: its settings are validated with the platform's schema, signed in with once, and stored with their secrets encrypted (never shown)",
          security: bearer,
          body: connectionBody,
          response: { 201: connectionSchema },
        },
      },
      async (request, reply) => {
        const { platform, name, settings, check_sign_in: checkSignIn } = request.body;
        const connection = await connections.add(
          { platform, name, settings, checkSignIn },
          principalOf(request),
        );
        return reply.status(201).send(presentConnection(connection));
      },
    );

    app.get(
      '/api/v1/connections',
      {
        schema: {
          tags,
          summary: 'Every connected account, of every platform',
          security: bearer,
          response: { 200: connectionListSchema },
        },
      },
      async () => ({ items: (await connections.list()).map(presentConnection) }),
    );

    app.get(
      '/api/v1/connections/:id',
      {
        schema: {
          tags,
          summary: 'One connected account (what its platform shows of its settings, never a secret)',
          security: bearer,
          params: idParams,
          response: { 200: connectionSchema },
        },
      },
      async (request) => presentConnection(await connections.get(request.params.id)),
    );

    app.post(
      '/api/v1/connections/:id/check',
      {
        schema: {
          tags,
          summary:
            'Check what Setpoint can do with the account, line by line; an account that does not answer is named unreachable within the limit, with what was tried',
          security: bearer,
          params: idParams,
          body: connectionCheckBody,
          response: { 200: connectionCheckSchema },
        },
      },
      async (request) => {
        const check = await connections.check(request.params.id, request.body.options);
        return {
          ok: check.ok,
          reachable: check.reachable,
          lines: check.lines.map((line) => ({ ...line, fix: line.fix ?? null })),
        };
      },
    );

    app.delete(
      '/api/v1/connections/:id',
      {
        schema: {
          tags,
          summary: 'Disconnect an account and delete its credentials: its projects stay, unlinked',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await connections.remove(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );
  };
}
