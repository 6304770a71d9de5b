import type { Command } from '@commander-js/extra-typings';
import { printJson } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

export function registerTokenCommand(program: Command): void {
  withRemoteOptions(
    program
      .command('token')
      .description('exchange the configured API key for a bearer token and print it')
      .addHelpText(
        'after',
        '\nExamples:\n  curl -H "Authorization: Bearer $(setpoint token)" http://127.0.0.1:8080/api/v1/projects',
      ),
  ).action(async (options) => {
    const client = remoteClient(options);
    const token = await client.accessToken();
    if (options.json) printJson({ access_token: token });
    else process.stdout.write(`${token}\n`);
  });
}
