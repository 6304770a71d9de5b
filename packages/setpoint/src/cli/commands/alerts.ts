import { type Command, Option } from '@commander-js/extra-typings';
import type {
  AlertEvent,
  alertDestinationSchema,
  alertRuleSchema,
  notificationSchema,
  Page,
} from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import type { z } from 'zod';
import { examples } from '../help-text.js';
import { commaList, numberArgument } from '../option-values.js';
import { formatTime, printJson, printTable } from '../output.js';
import { readStdin } from '../read-stdin.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

type Destination = z.infer<typeof alertDestinationSchema>;
type Rule = z.infer<typeof alertRuleSchema>;
type Notification = z.infer<typeof notificationSchema>;

/** Every event a rule can watch (a Record, so the compiler notices a new one). */
const eventMeanings: Record<AlertEvent, string> = {
  sla_missed: 'a run took longer than its SLA',
  sla_at_risk: "a run took the share of the project's last 10 runs that met the SLA below the target",
  cost_spike: 'a run cost more than the mean of the previous runs',
  external_change: "the project's cluster was changed outside Setpoint (auto-apply pauses)",
  apply_failed: 'applying or reverting a configuration failed',
  collection_parked: "collecting a run's event log failed",
  learning_finished: 'a project finished learning',
  approval_needed: "a learning run waits for a person's approval (apply mode approve-learning)",
};

const perHour = numberArgument({ whole: true, min: 1, max: 1000 });
const wholeNumber = numberArgument({ whole: true, min: 1 });

function printDestination(destination: Destination, json: boolean | undefined) {
  if (json) return printJson(destination);
  process.stdout.write(`destination ${destination.id} (${destination.kind} to ${destination.target})\n`);
}

/** The SMTP password `--smtp-password-stdin` reads (never an argument other users could see). */
async function smtpPasswordOf(options: {
  smtpPasswordStdin?: boolean | undefined;
  smtpUser?: string | undefined;
}): Promise<string | undefined> {
  if (!options.smtpPasswordStdin) return undefined;
  if (!options.smtpUser)
    throw new ValidationError('INVALID_OPTION', '--smtp-password-stdin needs --smtp-user');
  const password = await readStdin();
  if (!password) throw new ValidationError('INVALID_OPTION', 'standard input held no SMTP password');
  return password;
}

export function registerAlertsCommand(program: Command): void {
  const alerts = program
    .command('alerts')
    .description('alert destinations (Slack, signed webhooks), rules, and the notifications sent')
    .addHelpText(
      'after',
      examples(
        'setpoint alerts add-webhook --name on-call --url https://hooks.example.com/setpoint --signing-secret …',
        'setpoint alerts add-rule --event cost_spike --destination dst_… --threshold-pct 25',
        'setpoint alerts notifications',
      ),
    );

  withRemoteOptions(
    alerts
      .command('destinations')
      .description('list destinations (never their URLs or secrets)')
      .addHelpText('after', examples('setpoint alerts destinations', 'setpoint alerts destinations --json')),
  ).action(async (options) => {
    const page = await remoteClient(options).request<Page<Destination>>('GET', '/api/v1/alerts/destinations');
    if (options.json) return printJson(page);
    printTable(
      ['ID', 'NAME', 'KIND', 'TARGET', 'PER HOUR', 'CREATED'],
      page.items.map((item) => [
        item.id,
        item.name,
        item.kind,
        item.target,
        item.max_per_hour,
        formatTime(item.created_at),
      ]),
    );
  });

  withRemoteOptions(
    alerts
      .command('add-slack')
      .description('add a Slack incoming webhook as a destination')
      .requiredOption('--name <name>', 'what the destination is called')
      .requiredOption('--url <url>', 'the incoming-webhook URL (stored encrypted)')
      .option('--max-per-hour <n>', 'notifications sent per hour at most', perHour, 30)
      .addHelpText(
        'after',
        examples('setpoint alerts add-slack --name data-eng --url https://hooks.slack.com/services/T…/B…/…'),
      ),
  ).action(async (options) => {
    const created = await remoteClient(options).request<Destination>('POST', '/api/v1/alerts/destinations', {
      kind: 'slack',
      name: options.name,
      url: options.url,
      max_per_hour: options.maxPerHour,
    });
    printDestination(created, options.json);
  });

  withRemoteOptions(
    alerts
      .command('add-webhook')
      .description('add a webhook whose requests carry x-setpoint-signature (HMAC-SHA256 of the body)')
      .requiredOption('--name <name>', 'what the destination is called')
      .requiredOption('--url <url>', 'where to POST (stored encrypted)')
      .requiredOption('--signing-secret <secret>', 'HMAC key, 16 characters or more (stored encrypted)')
      .option('--max-per-hour <n>', 'notifications sent per hour at most', perHour, 30)
      .addHelpText(
        'after',
        examples(
          'setpoint alerts add-webhook --name on-call --url https://hooks.example.com/setpoint --signing-secret "$(openssl rand -hex 24)"',
        ),
      ),
  ).action(async (options) => {
    const created = await remoteClient(options).request<Destination>('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: options.name,
      url: options.url,
      signing_secret: options.signingSecret,
      max_per_hour: options.maxPerHour,
    });
    printDestination(created, options.json);
  });

  withRemoteOptions(
    alerts
      .command('update-destination')
      .description(
        'rename a destination, change its hourly limit, or replace its URL, signing secret or mail settings',
      )
      .argument('<destination>', 'destination id')
      .option('--name <name>', 'what the destination is called')
      .option('--max-per-hour <n>', 'notifications sent per hour at most', perHour)
      .option('--url <url>', 'slack, webhook: the new URL (stored encrypted)')
      .option('--signing-secret <secret>', 'webhook: the new HMAC key, 16 characters or more')
      .option('--smtp-host <host>', 'email: mail server')
      .option(
        '--smtp-port <port>',
        'email: mail server port',
        numberArgument({ whole: true, min: 1, max: 65_535 }),
      )
      .addOption(
        new Option('--tls <mode>', 'email: starttls, tls or none').choices([
          'starttls',
          'tls',
          'none',
        ] as const),
      )
      .option('--smtp-user <name>', 'email: new SMTP user name (stored encrypted)')
      .option('--smtp-password-stdin', 'email: read the new SMTP password from standard input')
      .addOption(
        new Option(
          '--no-smtp-auth',
          'email: forget the SMTP credentials and send without signing in',
        ).conflicts(['smtpUser', 'smtpPasswordStdin']),
      )
      .option('--from <address>', 'email: sender address')
      .option('--to <addresses>', 'email: recipients, comma-separated', commaList)
      .addHelpText(
        'after',
        examples(
          'setpoint alerts update-destination dst_… --name on-call-eu --max-per-hour 60',
          'setpoint alerts update-destination dst_… --url https://hooks.example.com/v2 --signing-secret "$(openssl rand -hex 24)"',
          'printf %s "$SMTP_PASSWORD" | setpoint alerts update-destination dst_… --smtp-user setpoint --smtp-password-stdin',
        ),
      ),
  ).action(async (id, options) => {
    const password = await smtpPasswordOf(options);
    const body = {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.maxPerHour !== undefined ? { max_per_hour: options.maxPerHour } : {}),
      ...(options.url !== undefined ? { url: options.url } : {}),
      ...(options.signingSecret !== undefined ? { signing_secret: options.signingSecret } : {}),
      ...(options.smtpHost !== undefined ? { smtp_host: options.smtpHost } : {}),
      ...(options.smtpPort !== undefined ? { smtp_port: options.smtpPort } : {}),
      ...(options.tls !== undefined ? { tls: options.tls } : {}),
      ...(options.smtpUser !== undefined ? { username: options.smtpUser } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(options.smtpAuth === false ? { username: null } : {}),
      ...(options.from !== undefined ? { from: options.from } : {}),
      ...(options.to !== undefined ? { to: options.to } : {}),
    };
    if (Object.keys(body).length === 0)
      throw new ValidationError('NOTHING_TO_CHANGE', 'give at least one setting to change (see --help)');
    const updated = await remoteClient(options).request<Destination>(
      'PATCH',
      `/api/v1/alerts/destinations/${encodeURIComponent(id)}`,
      body,
    );
    printDestination(updated, options.json);
  });

  withRemoteOptions(
    alerts
      .command('delete-destination')
      .description('delete a destination and its rules')
      .argument('<destination>', 'destination id')
      .addHelpText('after', examples('setpoint alerts delete-destination dst_…')),
  ).action(async (id, options) => {
    await remoteClient(options).request('DELETE', `/api/v1/alerts/destinations/${encodeURIComponent(id)}`);
    if (!options.json) process.stdout.write(`deleted ${id}\n`);
  });

  withRemoteOptions(
    alerts
      .command('rules')
      .description('list rules, or those covering one project')
      .option('--project <id>', 'only the rules that cover this project')
      .addHelpText('after', examples('setpoint alerts rules', 'setpoint alerts rules --project prj_…')),
  ).action(async (options) => {
    const query = options.project ? `?project_id=${encodeURIComponent(options.project)}` : '';
    const page = await remoteClient(options).request<Page<Rule>>('GET', `/api/v1/alerts/rules${query}`);
    if (options.json) return printJson(page);
    printTable(
      ['ID', 'EVENT', 'PROJECT', 'DESTINATION', 'PARAMETERS', 'ENABLED'],
      page.items.map((rule) => [
        rule.id,
        rule.event,
        rule.project_id ?? 'all projects',
        rule.destination_id,
        rule.event === 'cost_spike'
          ? `≥ ${rule.params.threshold_pct}% over the mean of ${countOf(rule.params.window_runs, 'run')}`
          : rule.event === 'sla_at_risk'
            ? `< ${Math.round(rule.params.at_risk_fraction * 100)}% of the last 10 runs met the SLA`
            : '',
        rule.enabled ? 'yes' : 'no',
      ]),
    );
  });

  withRemoteOptions(
    alerts
      .command('add-rule')
      .description('notify a destination of an event, for every project or one')
      .addOption(
        new Option('--event <event>', 'what to watch')
          .choices(Object.keys(eventMeanings))
          .makeOptionMandatory(),
      )
      .requiredOption('--destination <id>', 'destination id')
      .option('--project <id>', 'one project (default: every project)')
      .option('--threshold-pct <n>', 'cost_spike: percent above the mean', numberArgument({ above: 0 }), 20)
      .option('--window-runs <n>', 'cost_spike: runs the mean covers', wholeNumber, 5)
      .option(
        '--at-risk-fraction <x>',
        'sla_at_risk: SLA-hit target, the share of the last 10 runs that must meet the SLA (default 0.9)',
        numberArgument({ above: 0, max: 0.99 }),
        0.9,
      )
      .addHelpText(
        'after',
        `\nEvents:\n${Object.entries(eventMeanings)
          .map(([event, meaning]) => `  ${event.padEnd(18)} ${meaning}`)
          .join('\n')}\n${examples(
          'setpoint alerts add-rule --event sla_missed --destination dst_…',
          'setpoint alerts add-rule --event cost_spike --destination dst_… --project prj_… --threshold-pct 25',
        )}`,
      ),
  ).action(async (options) => {
    const rule = await remoteClient(options).request<Rule>('POST', '/api/v1/alerts/rules', {
      event: options.event as AlertEvent,
      destination_id: options.destination,
      project_id: options.project ?? null,
      params: {
        threshold_pct: options.thresholdPct,
        window_runs: options.windowRuns,
        at_risk_fraction: options.atRiskFraction,
      },
    });
    if (options.json) return printJson(rule);
    process.stdout.write(`rule ${rule.id}: ${rule.event} for ${rule.project_id ?? 'every project'}\n`);
  });

  withRemoteOptions(
    alerts
      .command('update-rule')
      .description('turn a rule on or off, point it at another destination, or change its parameters')
      .argument('<rule>', 'rule id')
      .addOption(new Option('--enable', 'turn the rule on (it starts from now)').conflicts('disable'))
      .option('--disable', 'turn the rule off (nothing is evaluated or sent until it is on again)')
      .option('--destination <id>', 'send to this destination instead')
      .option('--threshold-pct <n>', 'cost_spike: percent above the mean', numberArgument({ above: 0 }))
      .option('--window-runs <n>', 'cost_spike: runs the mean covers', wholeNumber)
      .option(
        '--at-risk-fraction <x>',
        'sla_at_risk: SLA-hit target, the share of the last 10 runs that must meet the SLA (default 0.9)',
        numberArgument({ above: 0, max: 0.99 }),
      )
      .addHelpText(
        'after',
        examples(
          'setpoint alerts update-rule alr_… --disable',
          'setpoint alerts update-rule alr_… --enable --threshold-pct 30',
        ),
      ),
  ).action(async (id, options) => {
    const params = {
      ...(options.thresholdPct !== undefined ? { threshold_pct: options.thresholdPct } : {}),
      ...(options.windowRuns !== undefined ? { window_runs: options.windowRuns } : {}),
      ...(options.atRiskFraction !== undefined ? { at_risk_fraction: options.atRiskFraction } : {}),
    };
    const body = {
      ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
      ...(options.destination ? { destination_id: options.destination } : {}),
      ...(Object.keys(params).length > 0 ? { params } : {}),
    };
    if (Object.keys(body).length === 0)
      throw new ValidationError(
        'NOTHING_TO_CHANGE',
        'give --enable, --disable, --destination or a parameter',
      );
    const rule = await remoteClient(options).request<Rule>(
      'PATCH',
      `/api/v1/alerts/rules/${encodeURIComponent(id)}`,
      body,
    );
    if (options.json) return printJson(rule);
    process.stdout.write(`rule ${rule.id}: ${rule.event}, ${rule.enabled ? 'on' : 'off'}\n`);
  });

  withRemoteOptions(
    alerts
      .command('add-email')
      .description('add an SMTP mail server and recipients as a destination')
      .requiredOption('--name <name>', 'what the destination is called')
      .requiredOption('--smtp-host <host>', 'mail server')
      .option(
        '--smtp-port <port>',
        'mail server port',
        numberArgument({ whole: true, min: 1, max: 65_535 }),
        587,
      )
      .addOption(
        new Option(
          '--tls <mode>',
          'starttls (required upgrade), tls (implicit, port 465) or none (trusted relay)',
        )
          .choices(['starttls', 'tls', 'none'] as const)
          .default('starttls' as const),
      )
      .option('--smtp-user <name>', 'SMTP user name (stored encrypted)')
      .option(
        '--smtp-password-stdin',
        'read the SMTP password from standard input (stored encrypted, never echoed)',
      )
      .requiredOption('--from <address>', 'sender address')
      .requiredOption('--to <addresses>', 'recipients, comma-separated', commaList)
      .option('--max-per-hour <n>', 'notifications sent per hour at most', perHour, 30)
      .addHelpText(
        'after',
        examples(
          'setpoint alerts add-email --name ops-mail --smtp-host smtp.example.com --from setpoint@example.com --to oncall@example.com',
          'printf %s "$SMTP_PASSWORD" | setpoint alerts add-email --name ops-mail --smtp-host smtp.example.com --smtp-user setpoint --smtp-password-stdin --from setpoint@example.com --to a@example.com,b@example.com',
        ),
      ),
  ).action(async (options) => {
    const password = await smtpPasswordOf(options);
    const created = await remoteClient(options).request<Destination>('POST', '/api/v1/alerts/destinations', {
      kind: 'email',
      name: options.name,
      smtp_host: options.smtpHost,
      smtp_port: options.smtpPort,
      tls: options.tls,
      ...(options.smtpUser ? { username: options.smtpUser, password } : {}),
      from: options.from,
      to: options.to,
      max_per_hour: options.maxPerHour,
    });
    printDestination(created, options.json);
  });

  withRemoteOptions(
    alerts
      .command('delete-rule')
      .description('delete a rule')
      .argument('<rule>', 'rule id')
      .addHelpText('after', examples('setpoint alerts delete-rule alr_…')),
  ).action(async (id, options) => {
    await remoteClient(options).request('DELETE', `/api/v1/alerts/rules/${encodeURIComponent(id)}`);
    if (!options.json) process.stdout.write(`deleted ${id}\n`);
  });

  withRemoteOptions(
    alerts
      .command('notifications')
      .description('notifications, newest first: sent, failed (with why) or held back by the hourly limit')
      .option('--project <id>', 'only this project')
      .option('--limit <n>', 'how many', numberArgument({ whole: true, min: 1, max: 500 }), 50)
      .addHelpText(
        'after',
        examples('setpoint alerts notifications', 'setpoint alerts notifications --project prj_… --json'),
      ),
  ).action(async (options) => {
    const query = new URLSearchParams({ limit: String(options.limit) });
    if (options.project) query.set('project_id', options.project);
    const page = await remoteClient(options).request<Page<Notification>>(
      'GET',
      `/api/v1/notifications?${query}`,
    );
    if (options.json) return printJson(page);
    printTable(
      ['WHEN', 'EVENT', 'STATUS', 'TITLE'],
      page.items.map((item) => [
        formatTime(item.created_at),
        item.event,
        item.error ? `${item.status} (${item.error})` : item.status,
        item.title,
      ]),
    );
    process.stdout.write(`${page.items.length} of ${page.total} notifications\n`);
  });

  withRemoteOptions(
    alerts
      .command('retry')
      .description('send a parked or failed notification again, now (admins)')
      .argument('<notification>', 'notification id')
      .addHelpText('after', examples('setpoint alerts retry ntf_…')),
  ).action(async (id, options) => {
    const answer = await remoteClient(options).request<Notification>(
      'POST',
      `/api/v1/notifications/${encodeURIComponent(id)}/retry`,
      {},
    );
    if (options.json) return printJson(answer);
    process.stdout.write(
      `notification ${answer.id}: ${answer.status}${answer.error ? ` (${answer.error})` : ''}\n`,
    );
  });
}
