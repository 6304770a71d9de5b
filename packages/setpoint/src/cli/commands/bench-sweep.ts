import { basename } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import Table from 'cli-table3';
import { readSweepCsv } from '../../bench/sweep/read-sweep-csv.js';
import {
  runSweepBench,
  type SweepBenchResult,
  type SweepOptimizerName,
  searchCheckpoints,
  sweepOptimizerNames,
} from '../../bench/sweep/run-sweep-bench.js';
import { groupSweepRows } from '../../bench/sweep/sweep-dataset.js';
import { parseCount } from '../option-values.js';

function parseSlaFactors(text: string): string[] {
  const factors = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const factor of factors) {
    const value = Number(factor);
    if (!Number.isFinite(value) || value < 1) {
      throw new ValidationError(
        'INVALID_OPTION',
        `--sla expects factors ≥ 1 such as 1.0,1.1,1.25, got "${factor}"`,
      );
    }
  }
  if (factors.length === 0) throw new ValidationError('INVALID_OPTION', '--sla needs at least one factor');
  return factors;
}

function parseOptimizers(text: string): SweepOptimizerName[] {
  const names = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const name of names) {
    if (!(sweepOptimizerNames as readonly string[]).includes(name)) {
      throw new ValidationError(
        'INVALID_OPTION',
        `--optimizers: unknown optimizer "${name}" (known: ${sweepOptimizerNames.join(', ')})`,
      );
    }
  }
  if (names.length === 0) throw new ValidationError('INVALID_OPTION', '--optimizers needs at least one name');
  return names as SweepOptimizerName[];
}

const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;

export function formatSweepTable(result: SweepBenchResult): string {
  const checkpoints = searchCheckpoints.map(String);
  const table = new Table({
    head: [
      'SLA',
      'optimizer',
      'cheaper',
      'median saving',
      'p25 saving',
      'SLA miss',
      'failed',
      ...checkpoints.map((k) => `≤1.1× @${k}`),
      'runs to ≤1.1×',
      'miss after learning',
    ],
    style: { head: [], border: [] },
  });
  for (const [sla, perfect] of Object.entries(result.perfect)) {
    table.push([
      sla,
      'perfect one-shot',
      percent(perfect.shareImprovable),
      percent(perfect.medianSaving),
      '',
      '',
      '',
      ...checkpoints.map(() => ''),
      '',
      '',
    ]);
    for (const [name, bySla] of Object.entries(result.optimizers)) {
      const entry = bySla[sla];
      if (!entry) continue;
      table.push([
        sla,
        name,
        percent(entry.oneShot.shareCheaper),
        percent(entry.oneShot.medianSaving),
        percent(entry.oneShot.p25Saving),
        percent(entry.oneShot.slaViolationRate),
        percent(entry.oneShot.failureRate),
        ...checkpoints.map((k) => percent(entry.search.pWithin110[k])),
        entry.search.medianRunsToWithin110 === null ? '> budget' : String(entry.search.medianRunsToWithin110),
        percent(entry.slaViolationRateAfterLearning),
      ]);
    }
  }
  return `${result.dataset}: ${result.workloads} workloads, ${result.coldStarts} cold starts\n${table.toString()}\n`;
}

export function registerBenchSweepCommand(bench: Command): void {
  bench
    .command('sweep')
    .description(
      'replay a measured configuration sweep: every completed configuration is a cold start; each optimizer picks the next runs',
    )
    .requiredOption(
      '--dataset <csv>',
      'sweep CSV (workload,instance_type,nodes,vcpus_per_node,memory_gib_per_node,price_usd_per_node_hour,runtime_s,completed)',
    )
    .option('--sla <factors>', 'SLA factors × the cold-start runtime, comma-separated', '1.0,1.1,1.25')
    .option('--budget <runs>', 'runs per search, counting the cold start', '10')
    .option(
      '--seeds <count>',
      'seeds per cold start for optimizers that draw random numbers (and for datasets with repeats)',
      '20',
    )
    .option(
      '--optimizers <names>',
      `comma-separated, from ${sweepOptimizerNames.join(',')}`,
      sweepOptimizerNames.join(','),
    )
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv --sla 1.1 --seeds 5 --json
  setpoint bench sweep --dataset my-sweep.csv --optimizers setpoint,gp-ei --budget 6

Savings are fractions of the cold-start cost; "≤1.1× @k" is the share of searches whose cheapest
SLA-meeting configuration after k runs costs at most 1.1 × the optimum. docs/optimizer.md explains each figure.`,
    )
    .action(async (options) => {
      const slaFactors = parseSlaFactors(options.sla);
      const budget = parseCount('--budget', options.budget, 1, 1000);
      const seeds = parseCount('--seeds', options.seeds, 1, 10_000);
      const optimizers = parseOptimizers(options.optimizers);
      const rows = await readSweepCsv(options.dataset);
      const result = runSweepBench(groupSweepRows(rows), {
        datasetName: basename(options.dataset),
        slaFactors,
        budget,
        seeds,
        optimizers,
      });
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatSweepTable(result));
    });
}
