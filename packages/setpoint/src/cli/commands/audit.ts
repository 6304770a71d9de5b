import { writeFile } from 'node:fs/promises';
import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import type { AuditTrailEntryResource, Page } from '@setpoint/api-contract';
import { examples } from '../help-text.js';
import { numberArgument, timeArgument } from '../option-values.js';
import { formatTime, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

interface FilterOptions {
  actor?: string | undefined;
  action?: string | undefined;
  entity?: string | undefined;
  project?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

/** The filters both subcommands take, as the API's query parameters. */
function withFilters<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--actor <who>', 'who: a user name (ana), user:ana, api-key:<id>, pipeline or external')
    .option(
      '--action <what>',
      'what: create, update_settings, apply_requested, rollback, reset, role_changed, …',
    )
    .option(
      '--entity <kind>',
      'kind of target: project, recommendation, workspace, api_key, user, organization, …',
    )
    .option('--project <id>', 'only changes that concern this project')
    .option(
      '--since <time>',
      'from (ISO 8601 date or date-time, or a span before now: 24h, 7d)',
      timeArgument(),
    )
    .option('--until <time>', 'before (same forms as --since)', timeArgument());
}

function filterQuery(options: FilterOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.actor) query.set('actor', options.actor);
  if (options.action) query.set('action', options.action);
  if (options.entity) query.set('entity', options.entity);
  if (options.project) query.set('project_id', options.project);
  if (options.since !== undefined) query.set('since', String(options.since));
  if (options.until !== undefined) query.set('until', String(options.until));
  return query;
}

const detailText = (detail: Record<string, unknown>) => {
  const text = JSON.stringify(detail);
  return text === '{}' ? '' : text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

export function registerAuditCommand(program: Command): void {
  const audit = program
    .command('audit')
    .description('the audit trail: who changed what and when (admins), filtered, listed or exported')
    .addHelpText(
      'after',
      examples(
        'setpoint audit list --since 7d',
        'setpoint audit list --actor ana --project prj_…',
        'setpoint audit export --since 2026-11-01 --format csv --output audit.csv',
      ),
    );

  withRemoteOptions(
    withFilters(audit.command('list').description('entries newest first, one page at a time'))
      .option('--limit <n>', 'entries per page', numberArgument({ whole: true, min: 1, max: 500 }), 50)
      .option('--offset <n>', 'entries to skip', numberArgument({ whole: true, min: 0 }), 0)
      .addHelpText(
        'after',
        examples(
          'setpoint audit list',
          'setpoint audit list --action rollback --since 30d',
          'setpoint audit list --entity user --json',
        ),
      ),
  ).action(async (options) => {
    const query = filterQuery(options);
    query.set('limit', String(options.limit));
    query.set('offset', String(options.offset));
    const page = await remoteClient(options).request<Page<AuditTrailEntryResource>>(
      'GET',
      `/api/v1/audit?${query}`,
    );
    if (options.json) return printJson(page);
    printTable(
      ['WHEN', 'WHO', 'WHAT', 'TARGET', 'DETAIL'],
      page.items.map((entry) => [
        formatTime(entry.created_at),
        entry.actor,
        entry.action,
        entry.project_name && entry.entity !== 'project'
          ? `${entry.entity} ${entry.entity_id} (${entry.project_name})`
          : `${entry.entity} ${entry.project_name ?? entry.entity_id}`,
        detailText(entry.detail),
      ]),
    );
    const last = options.offset + page.items.length;
    process.stdout.write(
      page.total === 0
        ? 'no audit entries match\n'
        : `entries ${options.offset + 1}–${last} of ${page.total}${last < page.total ? ` (next: --offset ${last})` : ''}\n`,
    );
  });

  withRemoteOptions(
    withFilters(
      audit
        .command('export')
        .description('every matching entry (at most 50,000) as CSV or JSON, to a file or standard output'),
    )
      .addOption(
        new Option('--format <format>', 'file format').choices(['csv', 'json'] as const).default('csv'),
      )
      .option('--output <file>', 'write here instead of standard output')
      .addHelpText(
        'after',
        examples(
          'setpoint audit export --since 30d > audit.csv',
          'setpoint audit export --format json --actor ana --output ana.json',
        ),
      ),
  ).action(async (options) => {
    const query = filterQuery(options);
    query.set('format', options.format);
    const text = await remoteClient(options).requestText('GET', `/api/v1/audit/export?${query}`);
    if (!options.output) return void process.stdout.write(text);
    await writeFile(options.output, text);
    const entries =
      options.format === 'json'
        ? (JSON.parse(text) as { total: number }).total
        : text.split('\r\n').length - 2;
    process.stderr.write(`wrote ${entries} audit entries to ${options.output}\n`);
  });
}
