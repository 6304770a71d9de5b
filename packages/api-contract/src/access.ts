import { z } from 'zod';

/** `POST /api/v1/auth/token`: an API key for a short-lived bearer token. */
export const tokenRequestBody = z.object({
  api_key_id: z.string().min(1).max(200),
  api_key_secret: z.string().min(1).max(200),
});
export const tokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: z.number(),
});
export type TokenResource = z.infer<typeof tokenSchema>;

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.number(),
  last_used_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});
export type ApiKeyResource = z.infer<typeof apiKeySchema>;
export const apiKeyListSchema = z.object({ items: z.array(apiKeySchema) });
export const apiKeyCreateBody = z.object({ name: z.string().min(1).max(100) });
/** The secret is in this answer only. */
export const apiKeyCreatedSchema = z.object({ id: z.string(), secret: z.string(), name: z.string() });
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;

export const userRoles = ['admin', 'editor', 'viewer'] as const;
export type UserRole = (typeof userRoles)[number];

export const sessionUserSchema = z.object({ username: z.string(), role: z.enum(userRoles) });
export type SessionUser = z.infer<typeof sessionUserSchema>;
export const signInBody = z.object({
  username: z.string().min(1).max(100),
  password: z.string().min(1).max(1000),
});
export const sessionSchema = z.object({ user: sessionUserSchema });
export const demoSignInQuery = z.object({ token: z.string().min(1).max(200) });
/**
 * Where a browser lands when it opens a demo sign-in link that was already used: the sign-in page, which
 * says why (`notice`), instead of the API's JSON error.
 */
export const demoLinkUsedNotice = 'demo-link-used';

/** A dashboard user as admins see it (never a password or its hash). */
export const userSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(userRoles),
  /** Set while disabled: no sign-in, no sessions. */
  disabled_at: z.number().nullable(),
  created_at: z.number(),
});
export type UserResource = z.infer<typeof userSchema>;
export const userListSchema = z.object({ items: z.array(userSchema) });

const newPassword = z.string().min(12).max(1000);

/** `POST /api/v1/users` (admins): without a password, one is generated and returned once. */
export const userCreateBody = z
  .object({
    username: z
      .string()
      .regex(/^[a-z0-9._-]{2,64}$/i, 'username must be 2–64 letters, digits, dots, dashes or underscores'),
    role: z.enum(userRoles),
    password: newPassword.optional(),
  })
  .strict();
/** The user, and the generated password when the request had none (shown this once). */
export const userCreatedSchema = z.object({ user: userSchema, password: z.string().optional() });

/** `PATCH /api/v1/users/:id` (admins): a new role, disable or enable. Never leaves no enabled admin. */
export const userUpdateBody = z
  .object({ role: z.enum(userRoles).optional(), disabled: z.boolean().optional() })
  .strict()
  .refine((body) => body.role !== undefined || body.disabled !== undefined, {
    message: 'give a role or disabled',
  });

/** `POST /api/v1/users/:id/password` (admins): a new password, generated when none is given. */
export const passwordResetBody = z.object({ password: newPassword.optional() }).strict();
export const passwordResetSchema = z.object({
  password: z.string().optional(),
  sessions_ended: z.literal(true),
});

/** `PUT /api/v1/session/password`: every signed-in user, proving the current password. */
export const passwordChangeBody = z
  .object({ current_password: z.string().min(1).max(1000), new_password: newPassword })
  .strict();
