import { formFactorAdviceSchema, formFactorDecisionBody, idParams } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import type { FormFactorService } from '../../service/form-factor/form-factor-service.js';

const bearer = [{ bearerAuth: [] }];

/** Form-factor advice of every platform's projects, and a person's decision on a proposed move. */
export function formFactorRoutes(formFactor: FormFactorService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/projects/:id/form-factor',
      {
        schema: {
          tags: ['projects'],
          summary:
            'What the job would cost in the other form (serverless, or a cluster), on what basis, and whether a move is proposed',
          security: bearer,
          params: idParams,
          response: { 200: formFactorAdviceSchema },
        },
      },
      async (request) => formFactor.advise(request.params.id),
    );

    app.post(
      '/api/v1/projects/:id/form-factor/decision',
      {
        schema: {
          tags: ['projects'],
          summary: 'Approve or dismiss a proposed form-factor move (recorded; Setpoint never makes the move)',
          security: bearer,
          params: idParams,
          body: formFactorDecisionBody,
          response: { 200: formFactorAdviceSchema },
        },
      },
      async (request) => formFactor.decide(request.params.id, request.body, principalOf(request).actor),
    );
  };
}
