import { createInterface } from 'node:readline/promises';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { createApiClient } from '../remote/api-client.js';
import {
  type CliProfile,
  cliConfigPath,
  profileSchema,
  readConfigFile,
  writeProfile,
} from '../remote/cli-profile.js';

async function ask(current: CliProfile): Promise<CliProfile> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const question = async (label: string, fallback?: string) => {
    const answer = (await prompt.question(`${label}${fallback ? ` [${fallback}]` : ''}: `)).trim();
    return answer || fallback;
  };
  try {
    return {
      url: await question('Setpoint server URL', current.url ?? 'http://127.0.0.1:8080'),
      apiKeyId: await question('API key id', current.apiKeyId),
      apiKeySecret: await question(
        'API key secret',
        current.apiKeySecret ? '(keep current)' : undefined,
      ).then((answer) => (answer === '(keep current)' ? current.apiKeySecret : answer)),
      workspace: await question('Default workspace id (optional)', current.workspace),
      preference: (await question(
        'Default preference: economy, balanced or performance',
        current.preference ?? 'economy',
      )) as CliProfile['preference'],
    };
  } finally {
    prompt.close();
  }
}

export function registerConfigureCommand(program: Command): void {
  program
    .command('configure')
    .description('save the server URL and API key to ~/.setpoint/config (mode 0600)')
    .option('--profile <name>', 'profile to write', 'default')
    .option('--url <url>', 'Setpoint server URL')
    .option('--api-key-id <id>', 'API key id (from `setpoint keys create`)')
    .option('--api-key-secret <secret>', 'API key secret')
    .option('--workspace <id>', 'default workspace id')
    .option('--preference <preference>', 'default preference: economy | balanced | performance')
    .option('--no-verify', 'do not check the key against the server')
    .addHelpText(
      'after',
      '\nInteractive on a terminal; flags otherwise. SETPOINT_URL, SETPOINT_API_KEY_ID and SETPOINT_API_KEY_SECRET override the file.\n\nExamples:\n  setpoint configure\n  setpoint configure --url https://setpoint.internal --api-key-id k_123 --api-key-secret …\n  setpoint configure --profile staging --url https://setpoint-staging.internal',
    )
    .action(async (options) => {
      const file = cliConfigPath();
      const current = readConfigFile(file).profiles[options.profile] ?? {};
      const fromFlags = {
        url: options.url,
        apiKeyId: options.apiKeyId,
        apiKeySecret: options.apiKeySecret,
        workspace: options.workspace,
        preference: options.preference,
      };
      const anyFlag = Object.values(fromFlags).some((value) => value !== undefined);
      if (!anyFlag && !process.stdin.isTTY) {
        throw new ValidationError(
          'NO_INPUT',
          'not a terminal: pass --url, --api-key-id and --api-key-secret',
        );
      }
      const answers = anyFlag ? fromFlags : await ask(current);
      const parsed = profileSchema.safeParse(
        Object.fromEntries(
          Object.entries({ ...current, ...answers }).filter(
            ([, value]) => value !== undefined && value !== '',
          ),
        ),
      );
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = String(issue?.path[0] ?? '');
        const flag = `--${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
        throw new ValidationError(
          'INVALID_PROFILE',
          field === 'url'
            ? `--url must be a URL such as http://localhost:8080, got "${String(answers.url)}"`
            : `invalid ${flag}: ${issue?.message ?? 'rejected'}`,
        );
      }
      const profile = parsed.data;
      if (options.verify && profile.url && profile.apiKeyId && profile.apiKeySecret) {
        await createApiClient({
          url: profile.url.replace(/\/+$/, ''),
          apiKeyId: profile.apiKeyId,
          apiKeySecret: profile.apiKeySecret,
          profile,
        }).accessToken();
      }
      writeProfile(file, options.profile, profile);
      process.stdout.write(`saved profile "${options.profile}" to ${file}\n`);
    });
}
