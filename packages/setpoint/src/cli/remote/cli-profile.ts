import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@setpoint/foundation/errors';
import { z } from 'zod';

export const profileSchema = z.object({
  url: z.string().url().optional(),
  apiKeyId: z.string().min(1).optional(),
  apiKeySecret: z.string().min(1).optional(),
  workspace: z.string().optional(),
  preference: z.enum(['economy', 'balanced', 'performance']).optional(),
});
export type CliProfile = z.infer<typeof profileSchema>;

const configFileSchema = z.object({ profiles: z.record(z.string(), profileSchema).default({}) });
type ConfigFile = z.infer<typeof configFileSchema>;

/** `~/.setpoint/config`, or `$SETPOINT_HOME/config` (tests and CI point it elsewhere). */
export function cliConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.SETPOINT_HOME ?? path.join(homedir(), '.setpoint'), 'config');
}

export function readConfigFile(file: string): ConfigFile {
  if (!existsSync(file)) return { profiles: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ConfigError(`${file} is not valid JSON; fix or delete it and run \`setpoint configure\` again`);
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${file}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Written with mode 0600: the file holds an API key secret. */
export function writeProfile(file: string, name: string, profile: CliProfile): void {
  const config = readConfigFile(file);
  config.profiles[name] = { ...config.profiles[name], ...profile };
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export interface ResolvedConnection {
  url: string;
  apiKeyId: string;
  apiKeySecret: string;
  profile: CliProfile;
}

/** Environment variables override the profile, which overrides defaults. */
export function resolveConnection(
  profileName: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConnection {
  const name = profileName ?? env.SETPOINT_PROFILE ?? 'default';
  const file = cliConfigPath(env);
  const config = readConfigFile(file);
  const profile = config.profiles[name];
  if (profileName && !profile)
    throw new ConfigError(`no profile "${name}" in ${file}; run \`setpoint configure --profile ${name}\``);
  const url = env.SETPOINT_URL ?? profile?.url ?? 'http://127.0.0.1:8080';
  const apiKeyId = env.SETPOINT_API_KEY_ID ?? profile?.apiKeyId;
  const apiKeySecret = env.SETPOINT_API_KEY_SECRET ?? profile?.apiKeySecret;
  if (!apiKeyId || !apiKeySecret) {
    throw new ConfigError(
      'no API key configured: run `setpoint configure` or set SETPOINT_API_KEY_ID and SETPOINT_API_KEY_SECRET',
    );
  }
  return { url: url.replace(/\/+$/, ''), apiKeyId, apiKeySecret, profile: profile ?? {} };
}
