import { tokenRequestBody, tokenSchema } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiKeyService } from '../../service/auth/api-key-service.js';

export function authRoutes(apiKeys: Pick<ApiKeyService, 'exchange'>): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/v1/auth/token',
      {
        config: { public: true },
        schema: {
          tags: ['auth'],
          summary: 'Exchange an API key for a short-lived bearer token',
          body: tokenRequestBody,
          response: { 200: tokenSchema },
        },
      },
      async (request) => {
        const { accessToken, expiresAt } = await apiKeys.exchange(
          request.body.api_key_id,
          request.body.api_key_secret,
        );
        return { access_token: accessToken, token_type: 'Bearer' as const, expires_at: expiresAt };
      },
    );
  };
}
