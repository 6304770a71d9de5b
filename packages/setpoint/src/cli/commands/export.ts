import type { Command } from '@commander-js/extra-typings';
import type { ConnectionResource, ProjectResource } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { remoteClient } from '../remote/remote-command.js';

/** The platform of the project's connection (EMR projects export `aws_emr_cluster`); null without one. */
async function platformOf(
  client: ReturnType<typeof remoteClient>,
  projectPath: string,
): Promise<string | null> {
  const project = await client.request<ProjectResource>('GET', projectPath);
  if (!project.workspace_id) return null;
  const connection = await client.request<ConnectionResource>(
    'GET',
    `/api/v1/connections/${encodeURIComponent(project.workspace_id)}`,
  );
  return connection.platform;
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'print a recommendation as Terraform (with lifecycle ignore_changes), JSON, or an EMR RunJobFlow block',
    )
    .argument('<project>', 'project id')
    .option(
      '--format <format>',
      'terraform | json | emr (RunJobFlow Instances and ManagedScalingPolicy)',
      'terraform',
    )
    .option('--recommendation <id>', 'which recommendation (default: the latest)')
    .option('--profile <name>', 'profile from ~/.setpoint/config')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint export p_123 > setpoint.tf\n  setpoint export p_123 --format json --recommendation rec_456\n  setpoint export p_789 --format emr > instances.json\n\nSee docs/iac.md for the two drift strategies, docs/emr.md for EMR.',
    )
    .action(async (project, options) => {
      if (options.format !== 'terraform' && options.format !== 'json' && options.format !== 'emr')
        throw new ValidationError('INVALID_FORMAT', '--format must be terraform, json or emr');
      const client = remoteClient(options);
      const path = `/api/v1/projects/${encodeURIComponent(project)}`;
      const emr = options.format === 'emr' || (await platformOf(client, path)) === 'emr';
      const query = new URLSearchParams({ format: options.format === 'emr' ? 'json' : options.format });
      if (options.recommendation) query.set('recommendation', options.recommendation);
      const text = await client.requestText('GET', `${path}/${emr ? 'emr/export' : 'export'}?${query}`);
      process.stdout.write(text);
    });
}
