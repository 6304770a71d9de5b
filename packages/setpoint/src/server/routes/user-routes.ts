import {
  idParams,
  passwordResetBody,
  passwordResetSchema,
  type UserResource,
  userCreateBody,
  userCreatedSchema,
  userListSchema,
  userSchema,
  userUpdateBody,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import { generatedPassword, type User, type UserService } from '../../service/auth/user-service.js';

const bearer = [{ bearerAuth: [] }];

export function presentUser(user: User): UserResource {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    disabled_at: user.disabledAt,
    created_at: user.createdAt,
  };
}

/**
 * Dashboard users, managed by admins (see `authorize`): create, change role, disable, delete, reset a
 * password. Every change is audited; none may leave the organization without an enabled admin.
 */
export function userRoutes(users: UserService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/users',
      {
        schema: {
          tags: ['users'],
          summary: 'Dashboard users (admins only)',
          security: bearer,
          response: { 200: userListSchema },
        },
      },
      async () => ({ items: (await users.list()).map(presentUser) }),
    );

    app.post(
      '/api/v1/users',
      {
        schema: {
          tags: ['users'],
          summary: 'Create a user; without a password one is generated and in this answer only',
          security: bearer,
          body: userCreateBody,
          response: { 201: userCreatedSchema },
        },
      },
      async (request, reply) => {
        const { username, role, password } = request.body;
        const chosen = password ?? generatedPassword();
        const user = await users.create(username, chosen, role, principalOf(request).actor);
        return reply.status(201).send({ user: presentUser(user), ...(password ? {} : { password: chosen }) });
      },
    );

    app.patch(
      '/api/v1/users/:id',
      {
        schema: {
          tags: ['users'],
          summary: "Change a user's role, or disable or enable them (their sessions end)",
          security: bearer,
          params: idParams,
          body: userUpdateBody,
          response: { 200: userSchema },
        },
      },
      async (request) => {
        const actor = principalOf(request).actor;
        const { role, disabled } = request.body;
        let user = await users.get(request.params.id);
        if (role !== undefined) user = await users.changeRole(user.id, role, actor);
        if (disabled !== undefined) user = await users.setDisabled(user.id, disabled, actor);
        return presentUser(user);
      },
    );

    app.delete(
      '/api/v1/users/:id',
      {
        schema: {
          tags: ['users'],
          summary: 'Delete a user (not the last enabled admin); the audit trail keeps what they did',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await users.remove(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );

    app.post(
      '/api/v1/users/:id/password',
      {
        schema: {
          tags: ['users'],
          summary: "Reset a user's password (generated when none is given, shown once); their sessions end",
          security: bearer,
          params: idParams,
          body: passwordResetBody,
          response: { 200: passwordResetSchema },
        },
      },
      async (request) => {
        const chosen = request.body.password ?? generatedPassword();
        await users.resetPassword(request.params.id, chosen, principalOf(request).actor);
        return { ...(request.body.password ? {} : { password: chosen }), sessions_ended: true as const };
      },
    );
  };
}
