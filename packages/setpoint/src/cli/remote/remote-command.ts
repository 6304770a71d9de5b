import type { Command, OptionValues } from '@commander-js/extra-typings';
import { createApiClient } from './api-client.js';
import { resolveConnection } from './cli-profile.js';

/** Options every command that talks to a Setpoint server accepts. */
export function withRemoteOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return command
    .option('--profile <name>', 'profile from ~/.setpoint/config (env SETPOINT_PROFILE)')
    .option('--json', 'print machine-readable JSON');
}

export function remoteClient(options: { profile?: string | undefined }) {
  return createApiClient(resolveConnection(options.profile));
}
