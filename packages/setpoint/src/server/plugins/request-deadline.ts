import type { FastifyInstance } from 'fastify';

/**
 * Every request is answered within `seconds` of arriving: received, handled and answered. The socket's
 * idle timeout (`idleTimeoutSeconds`) applies between requests only; before, it also ran while a handler
 * worked, so a check of a throttled workspace that took more than a minute was dropped without an answer
 * while its work went on unseen. Past the deadline the client gets `503 REQUEST_TIMEOUT`, never a closed
 * connection; the handler's work may still finish, which the message says.
 */
export function registerRequestDeadline(app: FastifyInstance, seconds: number): void {
  app.addHook('onRequest', async (request, reply) => {
    // the connection's idle timer would fire while the handler works (Node sets it for a connection's
    // first request); the deadline below bounds the request instead
    request.raw.socket?.setTimeout?.(0);
    const timer = setTimeout(() => {
      if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return;
      request.log.warn({ url: request.url, seconds }, 'request answered 503 at its deadline');
      void reply.code(503).send({
        error: {
          code: 'REQUEST_TIMEOUT',
          message: `the server did not finish this request within ${seconds} s (responseTimeoutSeconds); what it started may still complete, so read the resource again before repeating the request`,
        },
      });
    }, seconds * 1000);
    timer.unref();
    const clear = () => clearTimeout(timer);
    reply.raw.once('finish', clear);
    reply.raw.once('close', clear);
  });
}
