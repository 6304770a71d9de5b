import { z } from 'zod';

/**
 * Connecting an account of any platform (`/api/v1/connections`): one envelope for every platform, whose
 * `settings` each platform validates with its own schema (docs/api.md lists them). Secrets in the
 * settings are write-only: stored encrypted, never answered, never logged.
 */
export const connectionBody = z.object({
  /** The registered platform the account belongs to (`GET /api/v1/connections/platforms`). */
  platform: z.string().min(1).max(50),
  name: z.string().min(1).max(200),
  settings: z
    .record(z.string(), z.unknown())
    .describe("the platform's own settings, validated with its schema; secrets are write-only"),
  check_sign_in: z
    .boolean()
    .default(true)
    .describe(
      'sign in once, within the sign-in limit, before anything is stored: an account that does not answer (502 CONNECTION_UNREACHABLE) or refuses the credentials (400 CONNECTION_SIGN_IN_REFUSED) is not registered',
    ),
});
export type ConnectionBody = z.input<typeof connectionBody>;

export const connectionSchema = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string(),
  /** What the platform shows of its settings: where requests go and which sign-in, never a secret. */
  settings: z.record(z.string(), z.unknown()),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ConnectionResource = z.infer<typeof connectionSchema>;

export const connectionListSchema = z.object({ items: z.array(connectionSchema) });

export const connectionPlatformsSchema = z.object({ platforms: z.array(z.string()) });

export const connectionCheckBody = z
  .object({
    /** The platform's own check options (log locations, a SQL warehouse…), validated with its schema. */
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .default({ options: {} });

const checkLine = z.object({
  check: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  fix: z.string().nullable(),
});

export const connectionCheckSchema = z.object({
  /** Everything Setpoint needs to collect runs works. */
  ok: z.boolean(),
  /** Whether the account answered at all. */
  reachable: z.boolean(),
  lines: z.array(checkLine),
});
export type ConnectionCheckResource = z.infer<typeof connectionCheckSchema>;
