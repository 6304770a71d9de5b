import { apiKeyCreateBody, apiKeyCreatedSchema, apiKeyListSchema, idParams } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiKeyService } from '../../service/auth/api-key-service.js';
import { principalOf } from '../../service/auth/principal.js';

const bearer = [{ bearerAuth: [] }];

/** API keys from the dashboard (admins only, see `authorize`); the secret is shown once, at creation. */
export function apiKeyRoutes(
  apiKeys: Pick<ApiKeyService, 'create' | 'list' | 'revoke'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          summary: 'List API keys (never their secrets)',
          security: bearer,
          response: { 200: apiKeyListSchema },
        },
      },
      async () => ({
        items: (await apiKeys.list()).map((key) => ({
          id: key.id,
          name: key.name,
          created_at: key.createdAt,
          last_used_at: key.lastUsedAt,
          revoked_at: key.revokedAt,
        })),
      }),
    );

    app.post(
      '/api/v1/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          summary: 'Create an API key; the secret is in this answer only',
          security: bearer,
          body: apiKeyCreateBody,
          response: { 201: apiKeyCreatedSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await apiKeys.create(request.body.name, principalOf(request).actor)),
    );

    app.delete(
      '/api/v1/api-keys/:id',
      {
        schema: {
          tags: ['api-keys'],
          summary: 'Revoke an API key',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await apiKeys.revoke(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );
  };
}
