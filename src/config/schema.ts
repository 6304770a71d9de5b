import { z } from 'zod';

/** Every setting Setpoint reads, from env, a config file or flags: one schema, parsed once at start. */
export const configSchema = z
  .object({
    /** Where the embedded SQLite database, blobs and keys live. */
    dataDir: z.string().min(1).default('.setpoint'),
    /** `postgres://…` switches storage and queue to PostgreSQL; empty means SQLite under dataDir. */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    host: z.string().default('127.0.0.1'),
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Base64 32-byte master key for encrypting workspace secrets; generated into dataDir when absent. */
    masterKey: z.string().optional(),
    corsOrigins: z.array(z.string()).default([]),
    maxUploadBytes: z.coerce
      .number()
      .int()
      .positive()
      .default(2 * 1024 ** 3),
  })
  .strict();

export type SetpointConfig = z.infer<typeof configSchema>;
