import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { remoteClient } from '../remote/remote-command.js';

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('print a recommendation as Terraform (new_cluster + lifecycle ignore_changes) or JSON')
    .argument('<project>', 'project id')
    .option('--format <format>', 'terraform | json', 'terraform')
    .option('--recommendation <id>', 'which recommendation (default: the latest)')
    .option('--profile <name>', 'profile from ~/.setpoint/config')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint export p_123 > setpoint.tf\n  setpoint export p_123 --format json --recommendation rec_456\n\nSee docs/terraform.md for the two drift strategies.',
    )
    .action(async (project, options) => {
      if (options.format !== 'terraform' && options.format !== 'json')
        throw new ValidationError('INVALID_FORMAT', '--format must be terraform or json');
      const query = new URLSearchParams({ format: options.format });
      if (options.recommendation) query.set('recommendation', options.recommendation);
      const text = await remoteClient(options).requestText(
        'GET',
        `/api/v1/projects/${encodeURIComponent(project)}/export?${query}`,
      );
      process.stdout.write(text);
    });
}
