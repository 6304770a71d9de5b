import { errorKinds, isAppError } from '@setpoint/foundation/errors';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const formatLimit = (bytes: number) =>
  bytes >= 2 ** 20 ? `${+(bytes / 2 ** 20).toFixed(2)} MiB` : `${Math.round(bytes / 1024)} KiB`;

/** The single place errors become HTTP responses: `{error: {code, message, details?}}`. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // refused before its body was read to the end (a limit hit mid-upload): the rest of the body would
    // stall the connection for the client's next request, so the server closes it after answering
    if (!request.raw.complete) reply.header('connection', 'close');
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = error.validation.map((issue) => ({
        path: issue.instancePath || '/',
        message: issue.message,
      }));
      const first = details[0];
      const message = `invalid request ${error.validationContext ?? ''}: ${first ? `${first.path} ${first.message}` : 'validation failed'}`;
      return reply
        .status(400)
        .send({ error: { code: 'VALIDATION_FAILED', message, details } } satisfies ErrorBody);
    }
    if (isAppError(error)) {
      const body: ErrorBody = { error: { code: error.code, message: error.message } };
      if (error.kind === 'rate_limited') {
        const seconds = Number(error.details?.retryAfterSeconds);
        reply.header('retry-after', String(Number.isFinite(seconds) && seconds > 0 ? seconds : 60));
      }
      if (error.details) body.error.details = error.details;
      return reply.status(errorKinds[error.kind].httpStatus).send(body);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? 0;
      return reply.status(413).send({
        error: {
          code: 'BODY_TOO_LARGE',
          message: `the request body is larger than ${formatLimit(limit)}, the most ${request.method} ${request.routeOptions.url ?? request.url} accepts as JSON (event logs go as multipart/form-data)`,
        },
      } satisfies ErrorBody);
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      const code = error.code ?? 'BAD_REQUEST';
      return reply
        .status(error.statusCode)
        .send({ error: { code, message: error.message } } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({
      error: { code: 'INTERNAL', message: 'internal error; see the server log' },
    } satisfies ErrorBody);
  });
}
