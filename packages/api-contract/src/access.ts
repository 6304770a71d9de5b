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
