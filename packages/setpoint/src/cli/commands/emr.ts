import type { Command } from '@commander-js/extra-typings';
import type { ConnectionResource } from '@setpoint/api-contract';
import type {
  EmrAccountBody,
  EmrAccountList,
  EmrAccountResource,
  EmrConnectionBody,
  EmrConnectionResource,
  EmrImportResource,
  EmrServerlessDiscoverResource,
  EmrServerlessImportResource,
} from '@setpoint/api-contract/emr';
import { AppError, ValidationError } from '@setpoint/foundation/errors';
import { S3Client } from '@setpoint/foundation/s3';
import { countOf } from '@setpoint/foundation/words';
import { EmrClient } from '../../platforms/emr/api/emr-client.js';
import {
  credentialProvider,
  type EmrConnection,
  emrConnectionSchema,
} from '../../platforms/emr/api/emr-connection.js';
import { checkEmrAccess } from '../../platforms/emr/connection/emr-access-check.js';
import { discoverEmr } from '../../platforms/emr/discovery/discover.js';
import { defaultProjectTagKey, parseGroupingRule } from '../../platforms/emr/discovery/grouping.js';
import { examples } from '../help-text.js';
import { parseNumberOption } from '../option-values.js';
import { formatTime, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

interface AccountOptions {
  region?: string;
  roleArn?: string;
  externalId?: string;
  endpoint?: string;
  s3Endpoint?: string;
  stsEndpoint?: string;
}

/** The account from the flags: the AWS SDK's default chain, or a role assumed from it. */
export function connectionFromOptions(options: AccountOptions): EmrConnection {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region)
    throw new ValidationError(
      'EMR_REGION_MISSING',
      'give the account’s region with --region (or AWS_REGION)',
    );
  const parsed = emrConnectionSchema.safeParse({
    region,
    credentials: options.roleArn
      ? {
          kind: 'assume-role',
          roleArn: options.roleArn,
          ...(options.externalId ? { externalId: options.externalId } : {}),
        }
      : { kind: 'default-chain' },
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.s3Endpoint ? { s3Endpoint: options.s3Endpoint } : {}),
    ...(options.stsEndpoint ? { stsEndpoint: options.stsEndpoint } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'EMR_ACCOUNT_INVALID',
      `${issue?.path.join('.') || 'account'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

const accountFlags: [flag: string, description: string][] = [
  ['--region <region>', 'the account’s AWS region (default: AWS_REGION)'],
  ['--role-arn <arn>', 'assume this role (from the default credential chain)'],
  ['--external-id <id>', 'the external id the role’s trust policy asks for'],
  ['--endpoint <url>', 'an EMR endpoint other than AWS’s (a VPC endpoint, the emulator)'],
  ['--s3-endpoint <url>', 'an S3-compatible endpoint for the log buckets'],
  ['--sts-endpoint <url>', 'an STS endpoint for --role-arn'],
  ['--json', 'print JSON'],
];

/** The account flags every `setpoint emr` command takes (read back untyped, then validated by zod). */
function withAccountFlags<T extends { option(flag: string, description: string): unknown }>(command: T): T {
  for (const [flag, description] of accountFlags) command.option(flag, description);
  return command;
}

export function registerEmrCommand(program: Command): void {
  const emr = program
    .command('emr')
    .description(
      'AWS EMR accounts: check access and discover workloads locally; add, list, remove and import through the server',
    )
    .addHelpText(
      'after',
      examples(
        'setpoint emr check --region us-east-1 --role-arn arn:aws:iam::123456789012:role/setpoint --external-id acme',
        'setpoint emr discover --region us-east-1 --group-by tag:setpoint:project-id --since-days 14',
        'setpoint emr add --name prod --region us-east-1 --role-arn arn:aws:iam::123456789012:role/setpoint --external-id acme',
        'setpoint emr import wsp_123 nightly-orders hourly-sessions --group-by step-name',
      ),
    );

  registerAccountCommands(emr);
  registerServerlessCommands(emr);

  withAccountFlags(emr.command('check').description('check each permission Setpoint needs, one line each'))
    .option('--log-location <s3-uri...>', 'also check s3:ListBucket and s3:GetObject on these log locations')
    .addHelpText(
      'after',
      examples(
        'setpoint emr check --region us-east-1',
        'setpoint emr check --region us-east-1 --role-arn arn:aws:iam::123456789012:role/setpoint --external-id acme --json',
      ),
    )
    .action(async (_options, command) => {
      const options = command.opts() as AccountOptions & { logLocation?: string[]; json?: boolean };
      const connection = connectionFromOptions(options);
      const client = new EmrClient(connection);
      const s3 = new S3Client({
        region: connection.region,
        endpoint: connection.s3Endpoint,
        credentials: credentialProvider(connection),
      });
      try {
        const checks = await checkEmrAccess(client, s3, { logLocations: options.logLocation ?? [] });
        if (options.json) process.stdout.write(`${JSON.stringify({ checks }, null, 2)}\n`);
        else
          for (const check of checks)
            process.stdout.write(
              `${check.status.padEnd(7)} ${check.permission}${check.resource ? ` on ${check.resource}` : ''} (${check.neededFor}): ${check.detail}\n`,
            );
        const missing = checks.filter((check) => check.neededFor === 'collect' && check.status === 'missing');
        if (missing.length > 0)
          throw new AppError(
            'forbidden',
            'EMR_PERMISSIONS_MISSING',
            `Setpoint cannot collect EMR runs without ${missing.map((check) => check.permission).join(', ')}`,
          );
      } finally {
        client.close();
        s3.close();
      }
    });

  withAccountFlags(
    emr.command('discover').description('list recurring workloads: clusters and steps grouped by a rule'),
  )
    .option(
      '--group-by <rule>',
      'tag[:KEY], cluster-name, name-pattern:REGEX or step-name',
      `tag:${defaultProjectTagKey}`,
    )
    .option('--since-days <days>', 'clusters created in the last DAYS days', '14')
    .addHelpText(
      'after',
      examples(
        'setpoint emr discover --region us-east-1',
        "setpoint emr discover --region us-east-1 --group-by 'name-pattern:^(?<project>[a-z-]+)-\\d{8}$' --json",
      ),
    )
    .action(async (_options, command) => {
      const options = command.opts() as AccountOptions & {
        groupBy: string;
        sinceDays: string;
        json?: boolean;
      };
      const connection = connectionFromOptions(options);
      const rule = parseGroupingRule(options.groupBy, '--group-by');
      const days = parseNumberOption('--since-days', options.sinceDays, { whole: true, min: 1, max: 90 });
      const client = new EmrClient(connection);
      try {
        const found = await discoverEmr(client, { since: Date.now() - days * 86_400_000, rule });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
          return;
        }
        process.stdout.write(
          `${countOf(found.clusters, 'cluster')}, ${countOf(found.workloads.length, 'workload')} (${rule.kind})\n`,
        );
        for (const workload of found.workloads)
          process.stdout.write(
            `${workload.recurring ? 'recurring' : 'once     '} ${workload.key}: ${countOf(workload.runs.length, 'run')} on ${countOf(workload.clusterIds.length, 'cluster')}\n`,
          );
        if (found.ungrouped.length > 0)
          process.stdout.write(
            `${countOf(found.ungrouped.length, 'step')} ungrouped (e.g. ${found.ungrouped[0]?.reason})\n`,
          );
      } finally {
        client.close();
      }
    });
}

/** The account body from `emr add` flags; secrets come from the environment, never from a flag. */
export function accountBodyFromOptions(options: {
  name: string;
  region?: string;
  roleArn?: string;
  externalId?: string;
  accessKeysFromEnv?: boolean;
  logStoreKeysFromEnv?: boolean;
  endpoint?: string;
  s3Endpoint?: string;
  stsEndpoint?: string;
  groupBy: string;
}): EmrAccountBody {
  const connection = connectionFromOptions(options);
  let keys: { access_key_id: string; secret_access_key: string; session_token?: string } | undefined;
  if (options.accessKeysFromEnv) {
    const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey)
      throw new ValidationError(
        'EMR_KEYS_MISSING',
        '--access-keys-from-env needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment',
      );
    keys = {
      access_key_id: accessKeyId,
      secret_access_key: secretAccessKey,
      ...(process.env.AWS_SESSION_TOKEN ? { session_token: process.env.AWS_SESSION_TOKEN } : {}),
    };
  }
  const credentials: EmrAccountBody['credentials'] = options.roleArn
    ? {
        kind: 'assume-role',
        role_arn: options.roleArn,
        ...(options.externalId ? { external_id: options.externalId } : {}),
        ...(keys ? { source: keys } : {}),
      }
    : keys
      ? { kind: 'access-keys', ...keys }
      : { kind: 'default-chain' };
  let logStoreKeys: EmrAccountBody['log_store_keys'];
  if (options.logStoreKeysFromEnv) {
    const accessKeyId = process.env.SETPOINT_LOG_STORE_ACCESS_KEY_ID;
    const secretAccessKey = process.env.SETPOINT_LOG_STORE_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey)
      throw new ValidationError(
        'EMR_KEYS_MISSING',
        '--log-store-keys-from-env needs SETPOINT_LOG_STORE_ACCESS_KEY_ID and SETPOINT_LOG_STORE_SECRET_ACCESS_KEY in the environment',
      );
    logStoreKeys = { access_key_id: accessKeyId, secret_access_key: secretAccessKey };
  }
  return {
    name: options.name,
    region: connection.region,
    credentials,
    ...(logStoreKeys ? { log_store_keys: logStoreKeys } : {}),
    grouping: parseGroupingRule(options.groupBy, '--group-by'),
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    ...(connection.s3Endpoint ? { s3_endpoint: connection.s3Endpoint } : {}),
    ...(connection.stsEndpoint ? { sts_endpoint: connection.stsEndpoint } : {}),
  };
}

function describeSignIn(account: EmrAccountResource): string {
  if (account.credential_kind === 'assume-role')
    return `role ${account.role_arn}${account.has_external_id ? ' (external id set)' : ''}`;
  if (account.credential_kind === 'access-keys') return `access keys ${account.access_key_id_hint}`;
  return "the server's default AWS credentials";
}

/** An account connected through `/api/v1/connections`, shown as these commands always have shown it. */
function accountOf(connection: EmrConnectionResource): EmrAccountResource {
  const { id, name, settings, created_at, updated_at } = connection;
  return { id, name, ...settings, created_at, updated_at };
}

const isEmr = (connection: ConnectionResource): connection is EmrConnectionResource =>
  connection.platform === 'emr';

/**
 * `emr add|list|remove|import`: the server stores the account (sealed) and runs collection for it; add,
 * list and remove go through `/api/v1/connections`, import through the EMR routes.
 */
function registerAccountCommands(emr: Command): void {
  withRemoteOptions(
    emr
      .command('add')
      .description('connect an account to the Setpoint server (secrets are stored encrypted, never shown)')
      .requiredOption('--name <name>', 'a name for the account')
      .option('--region <region>', 'the account’s AWS region (default: AWS_REGION)')
      .option(
        '--role-arn <arn>',
        'assume this role (from the server’s credentials or --access-keys-from-env)',
      )
      .option('--external-id <id>', 'the external id the role’s trust policy asks for')
      .option(
        '--access-keys-from-env',
        'send AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN from this shell',
      )
      .option('--endpoint <url>', 'an EMR endpoint other than AWS’s (a VPC endpoint)')
      .option('--s3-endpoint <url>', 'an S3-compatible endpoint for the log buckets')
      .option(
        '--log-store-keys-from-env',
        'the S3-compatible log store’s own keys, from SETPOINT_LOG_STORE_ACCESS_KEY_ID / _SECRET_ACCESS_KEY',
      )
      .option('--sts-endpoint <url>', 'an STS endpoint for --role-arn')
      .option(
        '--group-by <rule>',
        'how steps become projects: tag[:KEY], cluster-name, name-pattern:REGEX or step-name',
        `tag:${defaultProjectTagKey}`,
      )
      .addHelpText(
        'after',
        examples(
          'setpoint emr add --name prod --region us-east-1 --role-arn arn:aws:iam::123456789012:role/setpoint --external-id acme',
          'AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… setpoint emr add --name dev --region eu-west-1 --access-keys-from-env',
        ),
      ),
  ).action(async (options) => {
    const { name, ...settings } = accountBodyFromOptions(options);
    // stored without signing in first, as `emr add` always has: `emr check` says what the account can do
    const body: EmrConnectionBody = { platform: 'emr', name, settings, check_sign_in: false };
    const account = accountOf(
      await remoteClient(options).request<EmrConnectionResource>('POST', '/api/v1/connections', body),
    );
    if (options.json) return printJson(account);
    process.stdout.write(
      `added EMR account ${account.id} (${account.name}, ${account.region}) signing in with ${describeSignIn(account)}\n`,
    );
  });

  withRemoteOptions(
    emr
      .command('list')
      .description('the EMR accounts of the Setpoint server')
      .addHelpText('after', examples('setpoint emr list', 'setpoint emr list --json')),
  ).action(async (options) => {
    const connections = await remoteClient(options).request<{ items: ConnectionResource[] }>(
      'GET',
      '/api/v1/connections',
    );
    const list: EmrAccountList = { items: connections.items.filter(isEmr).map(accountOf) };
    if (options.json) return printJson(list);
    printTable(
      ['ACCOUNT', 'NAME', 'REGION', 'SIGN-IN', 'GROUP BY', 'LAST POLL'],
      list.items.map((account) => [
        account.id,
        account.name,
        account.region,
        describeSignIn(account),
        account.grouping.kind === 'tag'
          ? `tag:${account.grouping.key}`
          : account.grouping.kind === 'name-pattern'
            ? `name-pattern:${account.grouping.pattern}`
            : account.grouping.kind,
        formatTime(account.last_reconciled_at),
      ]),
    );
  });

  withRemoteOptions(
    emr
      .command('remove')
      .description('disconnect an EMR account (its projects and runs stay)')
      .argument('<account>', 'account id')
      .addHelpText('after', examples('setpoint emr remove wsp_123')),
  ).action(async (account, options) => {
    const client = remoteClient(options);
    const path = `/api/v1/connections/${encodeURIComponent(account)}`;
    // the connection routes remove an account of any platform: this command removes EMR accounts only
    if (!isEmr(await client.request<ConnectionResource>('GET', path)))
      throw new ValidationError('NOT_EMR', `workspace ${account} is not an EMR account`);
    await client.request('DELETE', path);
    if (options.json) return printJson({ removed: account });
    process.stdout.write(`removed EMR account ${account}\n`);
  });

  withRemoteOptions(
    emr
      .command('import')
      .description('make discovered workloads projects; their finished runs are collected')
      .argument('<account>', 'account id')
      .argument('<workload...>', 'workload keys (as `setpoint emr discover` lists them)')
      .option(
        '--group-by <rule>',
        'tag[:KEY], cluster-name, name-pattern:REGEX or step-name (default: the account’s)',
      )
      .option('--since-days <days>', 'look at clusters created in the last DAYS days', '14')
      .option('--sla-minutes <minutes>', 'the runtime SLA of the new projects')
      .option('--no-history', 'do not collect the runs that already finished')
      .addHelpText(
        'after',
        examples(
          'setpoint emr import wsp_123 orders',
          'setpoint emr import wsp_123 hourly-sessions --group-by step-name --sla-minutes 45',
        ),
      ),
  ).action(async (account, workloads, options) => {
    const sinceDays = parseNumberOption('--since-days', options.sinceDays, { whole: true, min: 1, max: 90 });
    const sla =
      options.slaMinutes === undefined
        ? undefined
        : parseNumberOption('--sla-minutes', options.slaMinutes, { min: 1, max: 10_080 });
    if (options.groupBy) parseGroupingRule(options.groupBy, '--group-by');
    const result = await remoteClient(options).request<EmrImportResource>(
      'POST',
      `/api/v1/emr/accounts/${encodeURIComponent(account)}/import`,
      {
        workloads,
        since_days: sinceDays,
        collect_history: options.history,
        ...(options.groupBy ? { group_by: options.groupBy } : {}),
        ...(sla === undefined ? {} : { settings: { slaMinutes: sla } }),
      },
    );
    if (options.json) return printJson(result);
    for (const project of result.projects)
      process.stdout.write(
        `${project.created ? 'imported' : 'already imported'} ${project.workload} as ${project.id}${project.cluster_id ? ` (long-running cluster ${project.cluster_id})` : ''}: ${countOf(project.queued_runs, 'run')} queued\n`,
      );
    if (result.missing.length > 0)
      throw new ValidationError(
        'EMR_WORKLOAD_NOT_FOUND',
        `no such workload in the last ${sinceDays} days: ${result.missing.join(', ')} (see setpoint emr discover)`,
      );
  });
}

/** `emr serverless-discover|serverless-import`: an account's EMR Serverless jobs, through the server. */
function registerServerlessCommands(emr: Command): void {
  withRemoteOptions(
    emr
      .command('serverless-discover')
      .description("list the account's EMR Serverless applications and their recurring jobs")
      .argument('<account>', 'account id')
      .option('--application <id>', 'one application (default: every application of the region)')
      .option('--since-days <days>', 'look at job runs created in the last DAYS days', '14')
      .addHelpText(
        'after',
        examples(
          'setpoint emr serverless-discover wsp_123',
          'setpoint emr serverless-discover wsp_123 --application 00fkvq1t2b3c4d5e --json',
        ),
      ),
  ).action(async (account, options) => {
    const sinceDays = parseNumberOption('--since-days', options.sinceDays, { whole: true, min: 1, max: 90 });
    const query = new URLSearchParams({
      since_days: String(sinceDays),
      ...(options.application ? { application_id: options.application } : {}),
    });
    const found = await remoteClient(options).request<EmrServerlessDiscoverResource>(
      'GET',
      `/api/v1/emr/accounts/${encodeURIComponent(account)}/serverless/discover?${query}`,
    );
    if (options.json) return printJson(found);
    printTable(
      ['APPLICATION', 'NAME', 'JOB', 'RUNS', 'LAST RUN', 'PROJECT'],
      found.applications.flatMap((application) =>
        application.jobs.map((job) => [
          application.id,
          application.name ?? '—',
          job.key,
          String(job.runs.length),
          formatTime(job.runs.at(-1)?.created_at ?? null),
          job.project_id ?? '—',
        ]),
      ),
    );
    if (found.ungrouped > 0)
      process.stdout.write(
        `${countOf(found.ungrouped, 'job run')} with neither a name nor an entry point, not grouped\n`,
      );
  });

  withRemoteOptions(
    emr
      .command('serverless-import')
      .description('make EMR Serverless jobs monitored projects; their finished runs are collected')
      .argument('<account>', 'account id')
      .argument('<job...>', 'job names (as `setpoint emr serverless-discover` lists them)')
      .requiredOption('--application <id>', 'the EMR Serverless application the jobs run in')
      .option(
        '--project <id>',
        'add the one job to this project of the account (a job that moved to EMR Serverless)',
      )
      .option('--since-days <days>', 'look at job runs created in the last DAYS days', '14')
      .option('--sla-minutes <minutes>', 'the runtime SLA of the new projects')
      .option('--no-history', 'do not collect the runs that already finished')
      .addHelpText(
        'after',
        examples(
          'setpoint emr serverless-import wsp_123 orders --application 00fkvq1t2b3c4d5e --sla-minutes 60',
          'setpoint emr serverless-import wsp_123 orders --application 00fkvq1t2b3c4d5e --project prj_123',
        ),
      ),
  ).action(async (account, jobs, options) => {
    const sinceDays = parseNumberOption('--since-days', options.sinceDays, { whole: true, min: 1, max: 90 });
    const sla =
      options.slaMinutes === undefined
        ? undefined
        : parseNumberOption('--sla-minutes', options.slaMinutes, { min: 1, max: 10_080 });
    const result = await remoteClient(options).request<EmrServerlessImportResource>(
      'POST',
      `/api/v1/emr/accounts/${encodeURIComponent(account)}/serverless/import`,
      {
        application_id: options.application,
        jobs,
        since_days: sinceDays,
        collect_history: options.history,
        ...(options.project ? { project_id: options.project } : {}),
        ...(sla === undefined ? {} : { settings: { slaMinutes: sla } }),
      },
    );
    if (options.json) return printJson(result);
    for (const project of result.projects)
      process.stdout.write(
        `${project.job} of ${project.application_id} ${project.created ? 'imported as' : 'is in'} ${project.id}: ${countOf(project.queued_runs, 'run')} queued\n`,
      );
    if (result.missing.length > 0)
      throw new ValidationError(
        'EMR_SERVERLESS_JOB_NOT_FOUND',
        `no such job in application ${options.application} in the last ${sinceDays} days: ${result.missing.join(', ')} (see setpoint emr serverless-discover)`,
      );
  });
}
