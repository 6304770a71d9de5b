import type { Command } from '@commander-js/extra-typings';
import type { CodeDiffResource, CodeProposalResource } from '@setpoint/api-contract';
import { examples } from '../help-text.js';
import { formatTime, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

const projectPath = (project: string) => `/api/v1/projects/${encodeURIComponent(project)}`;

/** `setpoint iac diff | propose | proposals`: recommendations as reviewed changes to the team's code. */
export function registerIacCommand(program: Command): void {
  const iac = program
    .command('iac')
    .description(
      "write recommendations into the job's code (Terraform, bundles, Airflow DAGs) as reviewed changes",
    )
    .addHelpText(
      'after',
      '\nLink the code first (setpoint projects link-source), then review the change. See docs/iac.md.\n\nExamples:\n  setpoint projects link-source prj_8f2c1a --repo https://github.com/acme/infra.git --path jobs/orders.tf --token-env GITHUB_TOKEN\n  setpoint iac diff prj_8f2c1a\n  setpoint iac propose prj_8f2c1a',
    );

  withRemoteOptions(
    iac
      .command('diff')
      .description('print the unified diff a recommendation (default: the latest) makes in the linked code')
      .argument('<project>', 'project id')
      .option('--recommendation <id>', 'which recommendation (default: the latest)')
      .addHelpText(
        'after',
        examples(
          'setpoint iac diff prj_8f2c1a',
          'setpoint iac diff prj_8f2c1a --recommendation rec_4b1e | git apply',
        ),
      ),
  ).action(async (project, options) => {
    const query = options.recommendation
      ? `?recommendation=${encodeURIComponent(options.recommendation)}`
      : '';
    const result = await remoteClient(options).request<CodeDiffResource>(
      'GET',
      `${projectPath(project)}/iac/diff${query}`,
    );
    if (options.json) return printJson(result);
    process.stdout.write(result.diff);
    const notes =
      result.diff === ''
        ? [`${result.path} already holds recommendation ${result.recommendation_id}`]
        : result.notes;
    for (const note of notes) process.stderr.write(`${note}\n`);
  });

  withRemoteOptions(
    iac
      .command('propose')
      .description(
        'commit the recommendation on the project’s branch and open or update its pull or merge request',
      )
      .argument('<project>', 'project id')
      .option('--recommendation <id>', 'which recommendation (default: the latest)')
      .addHelpText(
        'after',
        examples('setpoint iac propose prj_8f2c1a', 'setpoint iac propose prj_8f2c1a --json'),
      ),
  ).action(async (project, options) => {
    const result = await remoteClient(options).request<{
      proposal: CodeProposalResource | null;
      message: string;
    }>(
      'POST',
      `${projectPath(project)}/iac/proposals`,
      options.recommendation ? { recommendation_id: options.recommendation } : {},
    );
    if (options.json) return printJson(result);
    process.stdout.write(`${result.message}\n`);
  });

  withRemoteOptions(
    iac
      .command('proposals')
      .description('list the proposals made in the project’s code, newest first')
      .argument('<project>', 'project id')
      .option('--refresh', 'ask the forge and the platform first (merged, closed, applied)')
      .addHelpText('after', examples('setpoint iac proposals prj_8f2c1a --refresh')),
  ).action(async (project, options) => {
    const result = await remoteClient(options).request<{ items: CodeProposalResource[] }>(
      'GET',
      `${projectPath(project)}/iac/proposals${options.refresh ? '?refresh=true' : ''}`,
    );
    if (options.json) return printJson(result);
    printTable(
      ['ID', 'STATE', 'RECOMMENDATION', 'REVIEW', 'FILES', 'CREATED'],
      result.items.map((proposal) => [
        proposal.id,
        proposal.state,
        proposal.recommendation_id,
        proposal.url ?? proposal.branch,
        proposal.files.join(', '),
        formatTime(proposal.created_at),
      ]),
    );
  });
}
