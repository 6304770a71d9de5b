import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
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
          body: z.object({
            api_key_id: z.string().min(1).max(200),
            api_key_secret: z.string().min(1).max(200),
          }),
          response: {
            200: z.object({
              access_token: z.string(),
              token_type: z.literal('Bearer'),
              expires_at: z.number(),
            }),
          },
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
