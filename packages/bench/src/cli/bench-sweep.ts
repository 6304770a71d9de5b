import { basename } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import Table from 'cli-table3';
import { parseCount, parseNumberOption } from 'setpoint/cli/option-values';
import { gpCeiFeasibilityFloor } from '../sweep/baselines/gp-cei-policy.js';
import type { CalibrationReport } from '../sweep/calibration.js';
import { readSweepCsv } from '../sweep/read-sweep-csv.js';
import {
  defaultSweepOptimizers,
  runSweepBench,
  type SweepBenchResult,
  type SweepFleet,
  type SweepOptimizerName,
  searchCheckpoints,
  shippedFleetSources,
  sweepFleets,
  sweepOptimizerNames,
} from '../sweep/run-sweep-bench.js';
import { groupSweepRows } from '../sweep/sweep-dataset.js';
import { type SweepGoal, sweepGoals } from '../sweep/sweep-goals.js';

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

function parseFleet(text: string): SweepFleet {
  if (!(sweepFleets as readonly string[]).includes(text)) {
    throw new ValidationError(
      'INVALID_OPTION',
      `--fleet expects one of ${sweepFleets.join(', ')}, got "${text}"`,
    );
  }
  return text as SweepFleet;
}

function parseSources(text: string | undefined): string[] {
  if (text === undefined) return [];
  const names = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const name of names) {
    if (!shippedFleetSources.includes(name)) {
      throw new ValidationError(
        'INVALID_OPTION',
        `--exclude-source: unknown shipped source "${name}" (known: ${shippedFleetSources.join(', ')})`,
      );
    }
  }
  return names;
}

const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;

const ratio = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${value.toFixed(2)}×`;

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
      'learning-run miss',
      'miss, runs 2+',
      'runtime/SLA p99',
      'max',
      'captured saving',
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
      '',
      '',
      '',
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
        percent(entry.learning.slaViolationRate),
        percent(entry.afterFirstRecommendation.slaViolationRate),
        ratio(entry.afterFirstRecommendation.runtimeOverSla.p99),
        ratio(entry.afterFirstRecommendation.runtimeOverSla.max),
        percent(entry.afterFirstRecommendation.capturedSaving),
      ]);
    }
  }
  const sections = [
    `${result.dataset}: ${result.workloads} workloads, ${result.coldStarts} cold starts; fleet: ${result.fleet}\n${table.toString()}`,
    formatCalibration(result),
  ];
  return `${sections.filter((section) => section !== '').join('\n\n')}\n`;
}

function calibrationRows(sla: string, kind: string, report: CalibrationReport): string[][] {
  return report.bins
    .filter((bin) => bin.cases > 0)
    .map((bin) => [
      sla,
      kind,
      `${bin.from.toFixed(2)}–${bin.to.toFixed(2)}`,
      String(bin.cases),
      percent(bin.meanClaimed),
      percent(bin.observed),
    ]);
}

/** Reliability of Setpoint's P(runtime ≤ SLA) and coverage of its 80% runtime interval. */
export function formatCalibration(result: SweepBenchResult): string {
  const bySla = result.optimizers.setpoint;
  if (!bySla) return '';
  const table = new Table({
    head: ['SLA', 'recommendation', 'claimed P(runtime ≤ SLA)', 'cases', 'mean claim', 'met the SLA'],
    style: { head: [], border: [] },
  });
  const coverage: string[] = [];
  for (const [sla, entry] of Object.entries(bySla)) {
    table.push(...calibrationRows(sla, 'first', entry.calibration.first));
    table.push(...calibrationRows(sla, 'first, moved', entry.calibration.firstMove));
    table.push(...calibrationRows(sla, 'later', entry.calibration.later));
    coverage.push(
      `SLA ${sla}: first ${percent(entry.calibration.first.intervalCoverage80)}, later ${percent(entry.calibration.later.intervalCoverage80)}`,
    );
  }
  return `Calibration of setpoint's claims\n${table.toString()}\nRuns inside the claimed 80% runtime interval — ${coverage.join('; ')}`;
}

export function formatGoals(goals: readonly SweepGoal[]): string {
  if (goals.length === 0) return '';
  const table = new Table({
    head: ['goal (SLA 1.1, budget 10)', 'measured', 'met'],
    style: { head: [], border: [] },
  });
  for (const goal of goals)
    table.push([goal.goal, goal.value, goal.met === null ? 'n/a' : goal.met ? 'yes' : 'no']);
  return `${table.toString()}\n`;
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
      `comma-separated, from ${sweepOptimizerNames.join(',')} (gp-cei: constrained EI; gp-cei-floor: held to P(runtime ≤ SLA) ≥ ${gpCeiFeasibilityFloor})`,
      defaultSweepOptimizers.join(','),
    )
    .option(
      '--fleet <fleet>',
      `what Setpoint's prior learns from: ${sweepFleets.join(' | ')} (the dataset's other workloads, the shipped fleet, or both)`,
      'shipped+dataset',
    )
    .option(
      '--exclude-source <names>',
      `shipped sources to leave out (leave-one-dataset-out), from ${shippedFleetSources.join(',')}`,
    )
    .option(
      '--cold-starts <count>',
      'at most this many cold starts per workload, evenly spaced (a quicker look)',
    )
    .option(
      '--learning-miss-budget <n>',
      "Setpoint's learning-run SLA-miss budget (the project setting learningMissBudget, default 0: safe learning; 1–7: the standard search)",
    )
    .option(
      '--feasibility-floor <p>',
      `gp-cei-floor's floor on the GP's P(runtime ≤ SLA), from 0 to 1 (default ${gpCeiFeasibilityFloor})`,
    )
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv --sla 1.1 --seeds 5 --json
  setpoint bench sweep --dataset my-sweep.csv --optimizers setpoint,gp-ei --budget 6
  setpoint bench sweep --dataset my-sweep.csv --sla 1.1 --optimizers setpoint,gp-ei,gp-cei,gp-cei-floor,random,stay
  setpoint bench sweep --dataset tests/fixtures/datasets/scout-sweep.csv --fleet shipped   # Scout held out

Savings are fractions of the cold-start cost; "≤1.1× @k" is the share of searches whose cheapest
SLA-meeting configuration after k runs costs at most 1.1 × the optimum. docs/optimizer.md explains each figure.`,
    )
    .action(async (options) => {
      const slaFactors = parseSlaFactors(options.sla);
      const budget = parseCount('--budget', options.budget, 1, 1000);
      const seeds = parseCount('--seeds', options.seeds, 1, 10_000);
      const optimizers = parseOptimizers(options.optimizers);
      const fleet = parseFleet(options.fleet);
      const excludeSources = parseSources(options.excludeSource);
      const coldStarts =
        options.coldStarts === undefined
          ? undefined
          : parseCount('--cold-starts', options.coldStarts, 1, 100_000);
      const learningMissBudget =
        options.learningMissBudget === undefined
          ? undefined
          : parseCount('--learning-miss-budget', options.learningMissBudget, 0, 7);
      const feasibilityFloor =
        options.feasibilityFloor === undefined
          ? undefined
          : parseNumberOption('--feasibility-floor', options.feasibilityFloor, { min: 0, max: 1 });
      const rows = await readSweepCsv(options.dataset);
      const result = runSweepBench(groupSweepRows(rows), {
        datasetName: basename(options.dataset),
        slaFactors,
        budget,
        seeds,
        optimizers,
        fleet,
        excludeSources,
        ...(coldStarts === undefined ? {} : { maxColdStartsPerWorkload: coldStarts }),
        ...(learningMissBudget === undefined ? {} : { setpointSettings: { learningMissBudget } }),
        ...(feasibilityFloor === undefined ? {} : { feasibilityFloor }),
      });
      const goals = sweepGoals(result, budget);
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ ...result, goals }, null, 2)}\n`
          : `${formatSweepTable(result)}\n${formatGoals(goals)}`,
      );
    });
}
