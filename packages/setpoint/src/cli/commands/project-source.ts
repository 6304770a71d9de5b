import type { Command } from '@commander-js/extra-typings';
import type { LinkSourceBody, ProjectSourceView } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { examples } from '../help-text.js';
import { printFields, printJson } from '../output.js';
import { readStdin } from '../read-stdin.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

const formats = ['terraform', 'bundle', 'airflow'] as const;
const forges = ['github', 'gitlab', 'none'] as const;

function oneOf<T extends string>(
  flag: string,
  allowed: readonly T[],
  value: string | undefined,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new ValidationError('INVALID_OPTION', `${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** Where a project's configuration lives and where a change goes, for people. */
export function showSource(view: ProjectSourceView): void {
  const source = view.source;
  printFields([
    ['code', source ? `${source.repository} // ${source.path} (${source.format})` : 'not linked'],
    [
      'linked by',
      source ? (source.origin === 'tag' ? 'the job’s setpoint:source tag' : source.created_by) : null,
    ],
    ['branch', source ? (source.branch ?? 'the remote’s default') : null],
    ['address', source?.address ?? null],
    ['target', source?.target ?? null],
    ['tfvars', source?.tfvars ?? null],
    ['forge', source ? `${source.forge}${source.forge_api_url ? ` (${source.forge_api_url})` : ''}` : null],
    ['token', source ? (source.token_set ? 'stored (encrypted)' : 'none') : null],
    [
      'deployed',
      view.declared?.deployed_from === 'bundle'
        ? `from a Databricks bundle${view.declared.locked ? ' (UI locked)' : ''}`
        : view.declared?.locked
          ? 'locked against edits outside its code'
          : null,
    ],
    [
      'changes go',
      view.route === 'code'
        ? 'to the code, as proposals'
        : view.route === 'api'
          ? 'through the platform’s API'
          : 'nowhere',
    ],
    ['why not', view.route_reason],
    ['tag problem', view.tag_problem],
  ]);
}

/** `projects link-source`, `projects unlink-source` and `projects source`: where a project's code lives. */
export function registerProjectSourceCommands(projects: Command): void {
  withRemoteOptions(
    projects
      .command('link-source')
      .description(
        'link a project to the code that defines its job (Terraform, a bundle, an Airflow DAG); admins',
      )
      .argument('<project>', 'project id')
      .requiredOption('--repo <remote>', 'git remote: https or ssh URL, or a path on the Setpoint server')
      .requiredOption(
        '--path <file>',
        'the file in the repository: a .tf file, databricks.yml or a resource .yml, a DAG .py',
      )
      .option('--format <format>', 'terraform | bundle | airflow (default: from the file name)')
      .option('--branch <name>', 'the branch proposals merge into (default: the remote’s default branch)')
      .option(
        '--address <name>',
        'the resource (databricks_job.orders), bundle job key or DAG task_id, when the file holds several',
      )
      .option('--target <name>', 'bundle target that is deployed (its overrides win)')
      .option('--tfvars <file>', 'the .tfvars file the team applies with (-var-file)')
      .option('--forge <forge>', 'github | gitlab | none (default: from the remote’s host)')
      .option(
        '--forge-api-url <url>',
        'API root, e.g. https://github.example.com/api/v3 or https://gitlab.example.com/api/v4',
      )
      .option('--token-env <variable>', 'read the forge token from this environment variable')
      .option('--token-stdin', 'read the forge token from standard input')
      .option(
        '--api-writes',
        'also let Setpoint write the job through the platform’s API (the code then drifts)',
      )
      .addHelpText(
        'after',
        examples(
          'setpoint projects link-source prj_8f2c1a --repo https://github.com/acme/infra.git --path jobs/orders.tf --token-env GITHUB_TOKEN',
          'setpoint projects link-source prj_8f2c1a --repo git@gitlab.example.com:data/bundles.git --path databricks.yml --target prod --token-stdin < token.txt',
          'setpoint projects link-source prj_8f2c1a --repo /srv/git/dags.git --path dags/orders.py --forge none',
        ),
      ),
  ).action(async (project, options) => {
    if (options.tokenEnv && options.tokenStdin)
      throw new ValidationError(
        'INVALID_OPTION',
        'give the token with --token-env or --token-stdin, not both',
      );
    let token: string | undefined;
    if (options.tokenEnv) {
      token = process.env[options.tokenEnv];
      if (!token)
        throw new ValidationError(
          'INVALID_OPTION',
          `the environment variable ${options.tokenEnv} is not set`,
        );
    } else if (options.tokenStdin) token = await readStdin();
    const body: LinkSourceBody = {
      repository: options.repo,
      path: options.path,
      ...(options.format ? { format: oneOf('--format', formats, options.format) } : {}),
      ...(options.branch ? { branch: options.branch } : {}),
      ...(options.address ? { address: options.address } : {}),
      ...(options.target ? { target: options.target } : {}),
      ...(options.tfvars ? { tfvars: options.tfvars } : {}),
      ...(options.forge ? { forge: oneOf('--forge', forges, options.forge) } : {}),
      ...(options.forgeApiUrl ? { forge_api_url: options.forgeApiUrl } : {}),
      ...(token ? { token } : {}),
      ...(options.apiWrites ? { api_writes: true } : {}),
    };
    const view = await remoteClient(options).request<ProjectSourceView>(
      'PUT',
      `/api/v1/projects/${encodeURIComponent(project)}/source`,
      body,
    );
    if (options.json) printJson(view);
    else showSource(view);
  });

  withRemoteOptions(
    projects
      .command('unlink-source')
      .description("forget a project's linked code and its forge token; admins")
      .argument('<project>', 'project id')
      .addHelpText('after', examples('setpoint projects unlink-source prj_8f2c1a')),
  ).action(async (project, options) => {
    await remoteClient(options).request('DELETE', `/api/v1/projects/${encodeURIComponent(project)}/source`);
    if (options.json) printJson({ unlinked: project });
    else process.stdout.write(`unlinked the code of ${project}\n`);
  });

  withRemoteOptions(
    projects
      .command('source')
      .description(
        "where a project's configuration lives (linked, or read from the job), and where a change goes",
      )
      .argument('<project>', 'project id')
      .addHelpText(
        'after',
        examples('setpoint projects source prj_8f2c1a', 'setpoint projects source prj_8f2c1a --json'),
      ),
  ).action(async (project, options) => {
    const view = await remoteClient(options).request<ProjectSourceView>(
      'GET',
      `/api/v1/projects/${encodeURIComponent(project)}/source`,
    );
    if (options.json) printJson(view);
    else showSource(view);
  });
}
