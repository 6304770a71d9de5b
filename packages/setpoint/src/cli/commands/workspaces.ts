import { createInterface } from 'node:readline/promises';
import type { Command, OptionValues } from '@commander-js/extra-typings';
import type {
  ConnectionCheckResource,
  ConnectionResource,
  ProjectResource,
  WorkspaceResource,
} from '@setpoint/api-contract';
import type {
  AccessCheckResource,
  DatabricksConnectionBody,
  DatabricksConnectionResource,
  DetachResource,
  DiscoveredJobResource,
  DiscoverResource,
  ImportResource,
  WorkspaceAuthBody,
  WorkspaceAuthResource,
} from '@setpoint/api-contract/databricks';
import { AppError, isAppError, ValidationError } from '@setpoint/foundation/errors';
import { examples } from '../help-text.js';
import { parseCount, parseNumberOption } from '../option-values.js';
import { colorEnabled, formatUsd, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

const plans = { standard: 'Standard', premium: 'Premium', enterprise: 'Enterprise' } as const;
const isPlan = (name: string): name is keyof typeof plans => Object.hasOwn(plans, name);
const isCloud = (name: string): name is 'aws' | 'azure' => name === 'aws' || name === 'azure';

/** A workspace connected through `/api/v1/connections`, shown as these commands always have shown it. */
function workspaceOf(connection: DatabricksConnectionResource): WorkspaceResource {
  const { id, name, platform, settings, created_at, updated_at } = connection;
  return { id, name, platform, ...settings, created_at, updated_at };
}

/** A connection's check as the access check these commands print (a line's fix only when it has one). */
function accessOf(check: ConnectionCheckResource): AccessCheckResource {
  return {
    ok: check.ok,
    checks: check.lines.map(({ fix, ...line }) => ({ ...line, ...(fix !== null && { fix }) })),
  };
}

/** The check of a connected workspace, with the log destination and SQL warehouse to check (and remember). */
async function checkWorkspace(
  client: ReturnType<typeof remoteClient>,
  id: string,
  options: { logDestination?: string | undefined; sqlWarehouseId?: string | undefined } = {},
): Promise<AccessCheckResource> {
  const check = await client.request<ConnectionCheckResource>(
    'POST',
    `/api/v1/connections/${encodeURIComponent(id)}/check`,
    {
      options: {
        ...(options.logDestination ? { log_destination: options.logDestination } : {}),
        ...(options.sqlWarehouseId ? { sql_warehouse_id: options.sqlWarehouseId } : {}),
      },
    },
  );
  return accessOf(check);
}

/** A failed access check exits 7 whatever the output format: a script sees it as a person does. */
function exitOnFailedCheck(result: AccessCheckResource): void {
  if (!result.ok) process.exitCode = 7;
}

function printChecks(result: AccessCheckResource): void {
  const color = colorEnabled();
  for (const line of result.checks) {
    const mark = line.ok
      ? color
        ? '\u001b[32m✔\u001b[0m'
        : 'ok  '
      : color
        ? '\u001b[31m✘\u001b[0m'
        : 'FAIL';
    process.stdout.write(`${mark} ${line.check}: ${line.detail}\n`);
    if (!line.ok && line.fix) process.stdout.write(`     fix: ${line.fix}\n`);
  }
  exitOnFailedCheck(result);
}

/**
 * AWS keys for an s3:// log destination come from the environment, as for the AWS CLI, so they stay out
 * of shell history; the server stores them encrypted with the workspace token.
 */
function s3Credentials(options: {
  logDestination?: string | undefined;
  s3Endpoint?: string | undefined;
  s3Region?: string | undefined;
}): Record<string, string> {
  const wantsS3 = options.logDestination?.startsWith('s3://') || options.s3Endpoint !== undefined;
  if (!wantsS3) return {};
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new ValidationError(
      'AWS_CREDENTIALS_REQUIRED',
      'an s3:// log destination needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment',
    );
  return {
    aws_access_key_id: accessKeyId,
    aws_secret_access_key: secretAccessKey,
    ...(process.env.AWS_SESSION_TOKEN ? { aws_session_token: process.env.AWS_SESSION_TOKEN } : {}),
    ...(options.s3Endpoint ? { s3_endpoint: options.s3Endpoint } : {}),
    ...(options.s3Region ? { s3_region: options.s3Region } : {}),
  };
}

interface AuthOptions {
  authType?: string | undefined;
  token?: string | undefined;
  clientId?: string | undefined;
  azureTenantId?: string | undefined;
  azureClientId?: string | undefined;
  azureAuthorityHost?: string | undefined;
}

/**
 * The sign-in a command asks for. Secrets may come from the environment under the Databricks SDKs'
 * names (DATABRICKS_TOKEN, DATABRICKS_CLIENT_SECRET, ARM_CLIENT_SECRET) so they stay out of shell history.
 */
function authBody(options: AuthOptions): WorkspaceAuthBody {
  const authType = options.authType ?? 'pat';
  const fromEnv = (name: string, flag: string, what: string): string => {
    const value = process.env[name];
    if (!value)
      throw new ValidationError(
        'AUTH_SECRET_REQUIRED',
        `${what}: set ${name} in the environment (or ${flag})`,
      );
    return value;
  };
  const need = (value: string | undefined, flag: string): string => {
    if (!value) throw new ValidationError('AUTH_OPTION_REQUIRED', `--auth-type ${authType} needs ${flag}`);
    return value;
  };
  switch (authType) {
    case 'pat':
      return {
        auth_type: 'pat',
        token: options.token ?? fromEnv('DATABRICKS_TOKEN', '--token', 'a personal access token is needed'),
      };
    case 'oauth-m2m':
      return {
        auth_type: 'oauth-m2m',
        client_id: need(options.clientId, '--client-id'),
        client_secret: fromEnv('DATABRICKS_CLIENT_SECRET', 'no flag', "the service principal's OAuth secret"),
      };
    case 'azure-client-secret':
      return {
        auth_type: 'azure-client-secret',
        azure_tenant_id: need(options.azureTenantId, '--azure-tenant-id'),
        azure_client_id: need(options.azureClientId, '--azure-client-id'),
        azure_client_secret: fromEnv('ARM_CLIENT_SECRET', 'no flag', "the Entra ID app's client secret"),
        ...(options.azureAuthorityHost ? { azure_authority_host: options.azureAuthorityHost } : {}),
      };
    default:
      throw new ValidationError(
        'INVALID_AUTH_TYPE',
        '--auth-type must be pat, oauth-m2m or azure-client-secret',
      );
  }
}

function withAuthOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--auth-type <type>', 'pat (default) | oauth-m2m | azure-client-secret')
    .option('--token <token>', 'personal access token (or DATABRICKS_TOKEN); stored encrypted')
    .option(
      '--client-id <id>',
      'Databricks service principal application id (secret: DATABRICKS_CLIENT_SECRET)',
    )
    .option('--azure-tenant-id <id>', 'Entra ID tenant of the service principal')
    .option('--azure-client-id <id>', 'Entra ID application (client) id (secret: ARM_CLIENT_SECRET)')
    .option('--azure-authority-host <url>', 'Entra ID authority (default https://login.microsoftonline.com)');
}

/**
 * Discover's table, money in cents, then every "—" or $0 with its reason (a cost or saving not estimated,
 * and why) and what each saving rests on, then the findings by name.
 */
function printDiscovery(result: DiscoverResource): void {
  const jobs = [...result.jobs].sort((a, b) => (b.monthly_cost_usd ?? 0) - (a.monthly_cost_usd ?? 0));
  printTable(
    ['JOB', 'NAME', 'COMPUTE', 'RUNS', '$/MONTH', 'EST. SAVING/MONTH', 'PHOTON', 'AUTOSCALE', 'IMPORTED'],
    jobs.map((job) => [
      job.job_id,
      job.name,
      job.compute,
      job.runs_in_window,
      formatUsd(job.monthly_cost_usd),
      formatUsd(job.estimated_monthly_savings_usd),
      job.photon ? 'yes' : '',
      job.autoscale ? 'yes' : '',
      job.imported ? 'yes' : '',
    ]),
  );
  const lines = (title: string, entries: [DiscoveredJobResource, string | null][]) => {
    const shown = entries.filter((entry): entry is [DiscoveredJobResource, string] => entry[1] !== null);
    if (shown.length === 0) return;
    process.stdout.write(`\n${title}:\n`);
    for (const [job, text] of shown) process.stdout.write(`  ${job.job_id} ${job.name}: ${text}\n`);
  };
  lines(
    'Cost notes',
    jobs.map((job) => [job, job.cost_note]),
  );
  lines(
    'Saving estimates',
    jobs.map((job) => [job, job.saving_note ?? job.saving_basis]),
  );
  const names = new Map(result.jobs.map((job) => [job.job_id, job]));
  process.stdout.write('\n');
  for (const finding of result.findings) {
    const members = finding.job_ids.map((id) => {
      const job = names.get(id);
      const saving =
        finding.id === 'top-savings' && job ? ` ${formatUsd(job.estimated_monthly_savings_usd)}/month` : '';
      return `${job?.name ?? id} (${id})${saving}`;
    });
    process.stdout.write(
      `${finding.title} (${finding.job_ids.length}): ${members.length ? members.join(', ') : 'none'} — ${finding.detail}\n`,
    );
  }
}

/** What removing a workspace does to its projects and jobs, in one sentence the user confirms. */
function removalConsequence(
  workspace: WorkspaceResource,
  linked: { items: ProjectResource[]; total: number },
): string {
  const named = linked.items
    .slice(0, 5)
    .map((project) => `${project.name} (${project.id})`)
    .join(', ');
  const more = linked.total > 5 ? ` and ${linked.total - 5} more` : '';
  const projects =
    linked.total === 0
      ? 'it has no projects'
      : `its ${linked.total} project${linked.total === 1 ? '' : 's'} (${named}${more}) stay with their runs and recommendations, unlinked: their runs are no longer collected and nothing is applied to their jobs`;
  return `Setpoint forgets ${workspace.name} (${workspace.host ?? 'no host'}) and its credentials; ${projects}; its jobs in Databricks are not changed (\`setpoint workspaces detach\` restores an imported job's settings first)`;
}

/**
 * A workspace not added because the sign-in failed: the server's reason, naming the host as it always has
 * (the server names the connection), and how to add it anyway.
 */
function withNoCheckHint(name: string, host: string): (error: unknown) => never {
  return (error) => {
    if (isAppError(error) && signInRefusals.includes(error.code)) {
      const reason = error.message.startsWith(`${name}: `)
        ? `${host}: ${error.message.slice(name.length + 2)}`
        : error.message;
      throw new AppError(
        error.kind,
        error.code,
        `workspace not added: ${reason} (--no-check registers it without signing in)`,
      );
    }
    throw error;
  };
}

const signInRefusals = ['CONNECTION_SIGN_IN_REFUSED', 'CONNECTION_UNREACHABLE'];

export function registerWorkspacesCommand(program: Command): void {
  const workspaces = program
    .command('workspaces')
    .description('connect Databricks workspaces, discover their jobs, import and detach them')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint workspaces add --host https://dbc-123.cloud.databricks.com --token dapi… --cloud aws --region us-east-1 --plan premium --log-destination dbfs:/cluster-logs\n  setpoint workspaces discover wsp_…\n  setpoint workspaces import wsp_… 123 456 --auto-apply --sla 60\n  setpoint workspaces detach wsp_… 123',
    );

  withAuthOptions(
    withRemoteOptions(
      workspaces
        .command('add')
        .description('register a workspace and check access line by line')
        .addHelpText(
          'after',
          examples(
            'setpoint workspaces add --host https://dbc-1234.cloud.databricks.com --token dapi… --cloud aws --region us-east-1',
            'AWS_ACCESS_KEY_ID=AKIA… AWS_SECRET_ACCESS_KEY=… setpoint workspaces add --host https://dbc-1234.cloud.databricks.com --token dapi… --cloud aws --region us-east-1 --plan premium --log-destination s3://my-logs/clusters',
            'DATABRICKS_CLIENT_SECRET=dose… setpoint workspaces add --host https://dbc-1234.cloud.databricks.com --auth-type oauth-m2m --client-id 6b1d… --cloud aws --region us-east-1 --plan premium --sql-warehouse-id 4b9b…',
            'ARM_CLIENT_SECRET=… setpoint workspaces add --host https://adb-1234.5.azuredatabricks.net --auth-type azure-client-secret --azure-tenant-id 72f9… --azure-client-id 9e3a… --cloud azure --region eastus --plan premium',
          ),
        ),
    ),
  )
    .requiredOption('--host <url>', 'workspace URL')
    .requiredOption('--cloud <cloud>', 'aws | azure')
    .requiredOption('--region <region>', 'cloud region, e.g. us-east-1 or eastus')
    .requiredOption('--plan <plan>', 'standard | premium | enterprise')
    .option('--name <name>', 'display name (default: the host)')
    .option(
      '--log-destination <path>',
      'where onboarded clusters deliver logs: dbfs:/…, /Volumes/… or s3://… (S3 reads with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY [/ AWS_SESSION_TOKEN] from the environment, stored encrypted)',
    )
    .option('--s3-endpoint <url>', 'S3-compatible endpoint for an s3:// log destination (MinIO, Ceph…)')
    .option('--s3-region <region>', "region of the log bucket, when it is not the workspace's")
    .option(
      '--sql-warehouse-id <id>',
      'SQL warehouse to read system tables (billing, node timelines) through',
    )
    .option(
      '--no-check',
      'register it without signing in first (it is registered even when the host does not answer or refuses the credentials)',
    )
    .action(async (options) => {
      const cloud = options.cloud;
      if (!isCloud(cloud)) throw new ValidationError('INVALID_CLOUD', '--cloud must be aws or azure');
      const planName = options.plan.toLowerCase();
      if (!isPlan(planName))
        throw new ValidationError('INVALID_PLAN', '--plan must be standard, premium or enterprise');
      const s3 = s3Credentials(options);
      const auth = authBody(options);
      const client = remoteClient(options);
      const name = options.name ?? new URL(options.host).host;
      const body: DatabricksConnectionBody = {
        platform: 'databricks',
        name,
        settings: {
          cloud,
          region: options.region,
          host: options.host,
          plan_type: plans[planName],
          compute_type: 'Jobs Compute',
          credentials: { ...auth, ...s3 } as Record<string, string>,
        },
        check_sign_in: options.check,
      };
      const workspace = workspaceOf(
        await client
          .request<DatabricksConnectionResource>('POST', '/api/v1/connections', body)
          .catch(withNoCheckHint(name, options.host)),
      );
      const check = await checkWorkspace(client, workspace.id, options);
      exitOnFailedCheck(check);
      if (options.json) return printJson({ workspace, access: check });
      process.stdout.write(`added workspace ${workspace.id} (${workspace.host})\n`);
      printChecks(check);
    });

  withAuthOptions(
    withRemoteOptions(
      workspaces
        .command('auth')
        .description('set or rotate how Setpoint signs in to a workspace, then check access')
        .addHelpText(
          'after',
          examples(
            'DATABRICKS_TOKEN=dapi… setpoint workspaces auth ws_1',
            'DATABRICKS_CLIENT_SECRET=dose… setpoint workspaces auth ws_1 --auth-type oauth-m2m --client-id 6b1d…',
            'ARM_CLIENT_SECRET=… setpoint workspaces auth ws_1 --auth-type azure-client-secret --azure-tenant-id 72f9… --azure-client-id 9e3a…',
          ),
        )
        .argument('<workspace>', 'workspace id'),
    ),
  ).action(async (id, options) => {
    const client = remoteClient(options);
    const auth = await client.request<WorkspaceAuthResource>(
      'PUT',
      `/api/v1/workspaces/${encodeURIComponent(id)}/auth`,
      authBody(options),
    );
    const check = await checkWorkspace(client, id);
    exitOnFailedCheck(check);
    if (options.json) return printJson({ auth, access: check });
    process.stdout.write(
      `workspace ${id} signs in with ${auth.auth_type}${auth.client_id ? ` as ${auth.client_id}` : ''}\n`,
    );
    printChecks(check);
  });

  withRemoteOptions(
    workspaces
      .command('list')
      .description('registered workspaces')
      .addHelpText('after', examples('setpoint workspaces list', 'setpoint workspaces list --json')),
  ).action(async (options) => {
    const body = await remoteClient(options).request<{ items: ConnectionResource[] }>(
      'GET',
      '/api/v1/connections',
    );
    // the other platforms' accounts have their own commands (`setpoint emr list`)
    const items = body.items
      .filter(
        (connection): connection is DatabricksConnectionResource => connection.platform === 'databricks',
      )
      .map(workspaceOf);
    if (options.json) return printJson(items);
    printTable(
      ['ID', 'NAME', 'CLOUD', 'REGION', 'PLAN', 'HOST'],
      items.map((w) => [w.id, w.name, w.cloud, w.region, w.plan_type, w.host]),
    );
  });

  withRemoteOptions(
    workspaces
      .command('check')
      .description('check what Setpoint can do in the workspace')
      .addHelpText(
        'after',
        examples(
          'setpoint workspaces check ws_1',
          'setpoint workspaces check ws_1 --log-destination dbfs:/cluster-logs',
        ),
      )
      .argument('<workspace>', 'workspace id'),
  )
    .option('--log-destination <path>', 'log destination to check (and remember)')
    .option('--sql-warehouse-id <id>', 'SQL warehouse for system tables to check (and remember)')
    .action(async (id, options) => {
      const check = await checkWorkspace(remoteClient(options), id, options);
      exitOnFailedCheck(check);
      if (options.json) printJson(check);
      else printChecks(check);
    });

  withRemoteOptions(
    workspaces
      .command('discover')
      .description('every job with its compute, monthly cost and findings')
      .addHelpText(
        'after',
        examples('setpoint workspaces discover ws_1', 'setpoint workspaces discover ws_1 --days 7 --json'),
      )
      .argument('<workspace>', 'workspace id'),
  )
    .option('--days <n>', 'look-back window in days', '30')
    .action(async (id, options) => {
      const result = await remoteClient(options).request<DiscoverResource>(
        'GET',
        `/api/v1/workspaces/${encodeURIComponent(id)}/discover?window_days=${parseCount('--days', options.days, 1, 60)}`,
      );
      if (options.json) return printJson(result);
      printDiscovery(result);
    });

  withRemoteOptions(
    workspaces
      .command('import')
      .description('create projects for jobs (one per job cluster) and wire them for collection')
      .addHelpText(
        'after',
        examples(
          'setpoint workspaces import ws_1 123 456 --sla 60',
          'setpoint workspaces import ws_1 123 --auto-apply --preference economy',
        ),
      )
      .argument('<workspace>', 'workspace id')
      .argument('<jobs...>', 'job ids'),
  )
    .option('--auto-apply', 'apply recommendations automatically')
    .option('--sla <minutes>', 'runtime SLA in minutes')
    .option('--preference <preference>', 'economy | balanced | performance')
    .option('--log-destination <path>', 'log destination for clusters without one')
    .action(async (id, jobIds, options) => {
      const settings: Record<string, unknown> = {};
      if (options.autoApply) settings.autoApply = true;
      if (options.sla) settings.slaMinutes = parseNumberOption('--sla', options.sla, { above: 0 });
      if (options.preference) settings.preference = options.preference;
      const result = await remoteClient(options).request<ImportResource>(
        'POST',
        `/api/v1/workspaces/${encodeURIComponent(id)}/import`,
        {
          job_ids: jobIds,
          settings,
          ...(options.logDestination ? { log_destination: options.logDestination } : {}),
        },
      );
      if (options.json) return printJson(result);
      for (const job of result.jobs) {
        process.stdout.write(
          `${job.name} (${job.job_id}): ${job.projects.map((project) => `${project.id} [${project.cluster_key}]`).join(', ') || 'no project'}\n`,
        );
        for (const skipped of job.skipped)
          process.stdout.write(`  skipped ${skipped.what}: ${skipped.reason}\n`);
      }
    });

  withRemoteOptions(
    workspaces
      .command('remove')
      .description(
        'forget a workspace and its credentials; its projects stay, unlinked (runs and recommendations kept, nothing collected or applied); its jobs in Databricks are not changed',
      )
      .addHelpText(
        'after',
        examples(
          'setpoint workspaces remove wsp_123',
          'setpoint workspaces detach wsp_123 456 && setpoint workspaces remove wsp_123 --yes',
        ),
      )
      .argument('<workspace>', 'workspace id'),
  )
    .option('--yes', 'remove without asking (needed when stdin is not a terminal)')
    .action(async (id, options) => {
      const client = remoteClient(options);
      const workspace = workspaceOf(
        await client.request<DatabricksConnectionResource>(
          'GET',
          `/api/v1/connections/${encodeURIComponent(id)}`,
        ),
      );
      const linked = await client.request<{ items: ProjectResource[]; total: number }>(
        'GET',
        `/api/v1/projects?workspace_id=${encodeURIComponent(id)}&limit=500`,
      );
      const consequence = removalConsequence(workspace, linked);
      if (!options.yes) {
        if (!process.stdin.isTTY)
          throw new ValidationError(
            'CONFIRMATION_REQUIRED',
            `workspaces remove ${id}: ${consequence}; pass --yes to remove it`,
          );
        const prompt = createInterface({ input: process.stdin, output: process.stderr });
        const answer = await prompt.question(`${consequence}.\nRemove workspace ${id}? [y/N] `);
        prompt.close();
        if (!/^y(es)?$/i.test(answer.trim())) {
          process.stderr.write('not removed\n');
          return;
        }
      }
      await client.request('DELETE', `/api/v1/connections/${encodeURIComponent(id)}`);
      if (options.json)
        return printJson({ removed: id, unlinked_projects: linked.items.map((project) => project.id) });
      process.stdout.write(`removed workspace ${id}; ${consequence}\n`);
    });

  withRemoteOptions(
    workspaces
      .command('detach')
      .description('undo an import: the job’s settings are restored exactly')
      .addHelpText('after', examples('setpoint workspaces detach ws_1 123'))
      .argument('<workspace>', 'workspace id')
      .argument('<job>', 'job id'),
  ).action(async (id, jobId, options) => {
    const result = await remoteClient(options).request<DetachResource>(
      'POST',
      `/api/v1/workspaces/${encodeURIComponent(id)}/detach`,
      { job_id: jobId },
    );
    if (options.json) printJson(result);
    else
      process.stdout.write(
        `detached job ${jobId}; its settings are restored (projects kept: ${result.projects.join(', ') || 'none'})\n`,
      );
  });
}
