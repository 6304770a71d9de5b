import type {} from '@fastify/cookie';
import {
  demoLinkUsedNotice,
  demoSignInQuery,
  passwordChangeBody,
  sessionSchema,
  signInBody,
} from '@setpoint/api-contract';
import {
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OneTimeSignIn } from '../../service/auth/one-time-sign-in.js';
import { FailureBackoff, rateLimited } from '../../service/auth/request-throttles.js';
import type { Session, UserService } from '../../service/auth/user-service.js';
import { csrfCookie, sessionCookie } from '../plugins/authentication.js';

/** The three backoffs of a sign-in: per name at one address, per name, per address. */
class SignInBackoff {
  readonly #pair: FailureBackoff;
  readonly #account: FailureBackoff;
  readonly #address: FailureBackoff;

  constructor(free: number) {
    this.#pair = new FailureBackoff(free, 15 * 60_000);
    this.#account = new FailureBackoff(free * 6, 15 * 60_000);
    this.#address = new FailureBackoff(free * 4, 15 * 60_000);
  }

  #of(key: string): FailureBackoff {
    if (key.startsWith('address:')) return this.#address;
    return key.startsWith('pair:') ? this.#pair : this.#account;
  }

  waitMs = (key: string) => this.#of(key).waitMs(key);
  fail = (key: string) => this.#of(key).fail(key);
  succeed = (key: string) => this.#of(key).succeed(key);
}

function cookieOptions(expiresAt: number, httpOnly: boolean, secure: boolean) {
  return { path: '/', sameSite: 'strict' as const, httpOnly, secure, expires: new Date(expiresAt) };
}

/**
 * Dashboard sign-in: an HttpOnly SameSite session cookie plus a readable CSRF cookie the dashboard
 * echoes in `x-csrf-token`. Failed sign-ins back off exponentially per account and address (429
 * with Retry-After).
 */
export function sessionRoutes(
  users: UserService,
  options: { signInFreeFailures: number; secureCookies: boolean; demoSignIn?: OneTimeSignIn },
): FastifyPluginAsyncZod {
  // Backoff per name from one address, per name from anywhere (a wider budget: a distributed guess
  // slows down, a real user elsewhere is not locked out by one noisy address) and per address.
  const throttle = new SignInBackoff(options.signInFreeFailures);
  return async (app) => {
    const setSession = (reply: import('fastify').FastifyReply, token: string, session: Session) => {
      reply.setCookie(sessionCookie, token, cookieOptions(session.expiresAt, true, options.secureCookies));
      reply.setCookie(
        csrfCookie,
        session.csrfToken,
        cookieOptions(session.expiresAt, false, options.secureCookies),
      );
    };

    app.post(
      '/api/v1/session',
      {
        config: {
          public: true,
        },
        schema: {
          tags: ['session'],
          summary: 'Sign in to the dashboard',
          body: signInBody,
          response: { 200: sessionSchema },
        },
      },
      async (request, reply) => {
        const name = request.body.username.trim().toLowerCase();
        const keys = [`pair:${name}|${request.ip}`, `account:${name}`, `address:${request.ip}`];
        const waitMs = Math.max(...keys.map((key) => throttle.waitMs(key)));
        if (waitMs > 0) throw rateLimited('too many failed sign-ins', waitMs / 1000);
        const signedIn = await users.signIn(request.body.username, request.body.password).catch((error) => {
          for (const key of keys) throttle.fail(key);
          throw error;
        });
        for (const key of keys) throttle.succeed(key);
        const { token, session } = signedIn;
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

    app.put(
      '/api/v1/session/password',
      {
        schema: {
          tags: ['session'],
          summary: "Change the signed-in user's password; their other sessions end, this one stays",
          body: passwordChangeBody,
        },
      },
      async (request, reply) => {
        const principal = request.principal;
        if (!principal) throw new UnauthorizedError();
        if (principal.via !== 'session')
          throw new ValidationError(
            'NOT_A_USER',
            'API keys have no password; sign in to the dashboard to change yours',
          );
        // Wrong current passwords count like failed sign-ins: the change cannot be used to guess.
        const key = `account:${principal.actor.replace(/^user:/, '').toLowerCase()}`;
        const waitMs = throttle.waitMs(key);
        if (waitMs > 0) throw rateLimited('too many wrong passwords', waitMs / 1000);
        await users
          .changeOwnPassword(
            principal.keyId,
            request.body.current_password,
            request.body.new_password,
            request.cookies[sessionCookie] ?? null,
          )
          .catch((error: unknown) => {
            if (error instanceof ForbiddenError) throttle.fail(key);
            throw error;
          });
        return reply.status(204).send();
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
        const redeemed = options.demoSignIn?.redeem(request.query.token) === true;
        // A person who opens the link a second time lands on the sign-in page, which says why; a client
        // that asked for JSON gets the error as JSON.
        if (!redeemed && acceptsHtml(request.headers.accept))
          return reply.redirect(`/login?notice=${demoLinkUsedNotice}`, 303);
        if (!redeemed)
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

/** Whether a request comes from a browser navigating (it prefers a page to JSON). */
function acceptsHtml(accept: string | undefined): boolean {
  return accept?.includes('text/html') === true;
}
