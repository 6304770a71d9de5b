import type {} from '@fastify/cookie';
import { demoSignInQuery, sessionSchema, signInBody } from '@setpoint/api-contract';
import { NotFoundError, UnauthorizedError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OneTimeSignIn } from '../../service/auth/one-time-sign-in.js';
import type { Session, UserService } from '../../service/auth/user-service.js';
import { csrfCookie, sessionCookie } from '../plugins/authentication.js';

function cookieOptions(expiresAt: number, httpOnly: boolean) {
  return { path: '/', sameSite: 'strict' as const, httpOnly, expires: new Date(expiresAt) };
}

/**
 * Dashboard sign-in: an HttpOnly SameSite session cookie plus a readable CSRF cookie the dashboard
 * echoes in `x-csrf-token`. Sign-in attempts are rate limited per address.
 */
export function sessionRoutes(
  users: UserService,
  options: { loginAttemptsPerMinute: number; demoSignIn?: OneTimeSignIn },
): FastifyPluginAsyncZod {
  return async (app) => {
    const setSession = (reply: import('fastify').FastifyReply, token: string, session: Session) => {
      reply.setCookie(sessionCookie, token, cookieOptions(session.expiresAt, true));
      reply.setCookie(csrfCookie, session.csrfToken, cookieOptions(session.expiresAt, false));
    };

    app.post(
      '/api/v1/session',
      {
        config: {
          public: true,
          rateLimit: {
            max: options.loginAttemptsPerMinute,
            timeWindow: 60_000,
            keyGenerator: (request) => `login:${request.ip}`,
          },
        },
        schema: {
          tags: ['session'],
          summary: 'Sign in to the dashboard',
          body: signInBody,
          response: { 200: sessionSchema },
        },
      },
      async (request, reply) => {
        const { token, session } = await users.signIn(request.body.username, request.body.password);
        setSession(reply, token, session);
        return { user: { username: session.user.username, role: session.user.role } };
      },
    );

    app.get(
      '/api/v1/session',
      {
        schema: {
          tags: ['session'],
          summary: 'The signed-in user',
          response: { 200: sessionSchema },
        },
      },
      async (request) => {
        const principal = request.principal;
        if (!principal) throw new UnauthorizedError();
        return { user: { username: principal.actor.replace(/^(user|api-key):/, ''), role: principal.role } };
      },
    );

    app.delete(
      '/api/v1/session',
      { schema: { tags: ['session'], summary: 'Sign out' } },
      async (request, reply) => {
        const token = request.cookies[sessionCookie];
        if (token) await users.signOut(token);
        reply.clearCookie(sessionCookie, { path: '/' });
        reply.clearCookie(csrfCookie, { path: '/' });
        return reply.status(204).send();
      },
    );

    app.get(
      '/api/v1/session/demo',
      {
        config: { public: true },
        schema: { hide: true, querystring: demoSignInQuery },
      },
      async (request, reply) => {
        if (!options.demoSignIn?.redeem(request.query.token))
          throw new NotFoundError(
            'NO_DEMO_LOGIN',
            'this sign-in link was already used or is not valid; sign in with the user and password `setpoint demo` printed',
          );
        const admin = await users.userByName('demo');
        if (!admin) throw new NotFoundError('NO_DEMO_USER', 'the demo user does not exist');
        const { token, session } = await users.openSession(admin);
        setSession(reply, token, session);
        return reply.redirect('/');
      },
    );
  };
}
