import type { Command } from '@commander-js/extra-typings';
import type { CostKind, CostTotals, SpendReportWire } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { costKindLabels, feeLabel, platformLabel, spendWindow, spendWindowDays } from '@setpoint/insights';
import { examples } from '../help-text.js';
import { timeArgument } from '../option-values.js';
import { formatTime, formatUsd, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

/** Every kind, in the contract's order (the labels are listed in it). */
const costKinds = Object.keys(costKindLabels) as CostKind[];

/** One table row of amounts: each kind, then the total. */
const amounts = (totals: CostTotals) => [
  ...costKinds.map((kind) => formatUsd(totals.by_kind[kind])),
  formatUsd(totals.total_usd),
];

/** The report as a table whose TOTAL row is the API's total, kind by kind, to the cent. */
export function spendTable(report: SpendReportWire): { headers: string[]; rows: string[][] } {
  const headers = [
    'PROJECT',
    'PLATFORM',
    'RUNS',
    ...costKinds.map((kind) => costKindLabels[kind].toUpperCase()),
    'TOTAL',
    'SAVINGS TO DATE',
  ];
  const rows = [...report.projects]
    .sort((a, b) => b.spend.total_usd - a.spend.total_usd || a.name.localeCompare(b.name))
    .map((project) => [
      project.name,
      project.platform ? platformLabel(project.platform) : '—',
      String(project.spend.runs),
      ...amounts(project.spend),
      formatUsd(project.savings_to_date_usd),
    ]);
  rows.push([
    'TOTAL',
    'all',
    String(report.total.runs),
    ...amounts(report.total),
    formatUsd(report.savings_to_date_usd),
  ]);
  return { headers, rows };
}

export function registerSpendCommand(program: Command): void {
  withRemoteOptions(
    program
      .command('spend')
      .description(
        `spend by project and by kind (compute, platform fees, storage, network, other) at your prices; default the last ${spendWindowDays} days, as the dashboard`,
      )
      .addHelpText(
        'after',
        examples(
          'setpoint spend',
          'setpoint spend --since 7d',
          'setpoint spend --since 2026-11-01 --until 2026-12-01 --json',
        ),
      ),
  )
    .option(
      '--since <time>',
      'from (ISO 8601 date or date-time, or a span before now: 24h, 7d)',
      timeArgument(),
    )
    .option('--until <time>', 'before (same forms as --since; default the end of today, UTC)', timeArgument())
    .action(async (options) => {
      const window = spendWindow(Date.now());
      const to = options.until ?? window.to;
      const from =
        options.since ?? (options.until === undefined ? window.from : to - spendWindowDays * 86_400_000);
      if (!(from < to)) {
        throw new ValidationError('INVALID_PERIOD', '--since must be before --until');
      }
      const report = await remoteClient(options).request<SpendReportWire>(
        'GET',
        `/api/v1/insights/spend?from=${from}&to=${to}`,
      );
      if (options.json) return printJson(report);
      process.stdout.write(
        `Spend from ${formatTime(report.period.from)} to ${formatTime(report.period.to)} UTC, at your prices (discounts applied)\n`,
      );
      const { headers, rows } = spendTable(report);
      printTable(headers, rows);
      const fees = report.total.platform_fees.map((fee) => `${feeLabel(fee.fee)} ${formatUsd(fee.usd)}`);
      if (fees.length > 0) process.stdout.write(`Platform fees: ${fees.join(', ')}\n`);
      const platforms = report.total.platforms.map(
        (entry) => `${platformLabel(entry.platform)} ${formatUsd(entry.usd)}`,
      );
      if (platforms.length > 0) process.stdout.write(`By platform: ${platforms.join(', ')}\n`);
    });
}
