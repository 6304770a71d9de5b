import type { Command } from '@commander-js/extra-typings';
import { AppError, ValidationError } from '@setpoint/foundation/errors';
import { S3Client } from '@setpoint/foundation/s3';
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
    .description('AWS EMR accounts: check access and discover recurring workloads (local: no server needed)')
    .addHelpText(
      'after',
      examples(
        'setpoint emr check --region us-east-1 --role-arn arn:aws:iam::123456789012:role/setpoint --external-id acme',
        'setpoint emr discover --region us-east-1 --group-by tag:setpoint:project-id --since-days 14',
      ),
    );

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
          `${found.clusters} clusters, ${found.workloads.length} workloads (${rule.kind})\n`,
        );
        for (const workload of found.workloads)
          process.stdout.write(
            `${workload.recurring ? 'recurring' : 'once     '} ${workload.key}: ${workload.runs.length} runs on ${workload.clusterIds.length} clusters\n`,
          );
        if (found.ungrouped.length > 0)
          process.stdout.write(
            `${found.ungrouped.length} steps ungrouped (e.g. ${found.ungrouped[0]?.reason})\n`,
          );
      } finally {
        client.close();
      }
    });
}
