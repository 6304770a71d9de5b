import { type Command, Option } from '@commander-js/extra-typings';
import type { Preference } from '@setpoint/api-contract';
import Table from 'cli-table3';
import { parseCount } from 'setpoint/cli/option-values';
import { latencyParts } from '../jobbank/latency-breakdown.js';
import { type JobBankOptions, type JobBankResult, runJobBankBench } from '../jobbank/run-jobbank-bench.js';

const preferences = ['economy', 'balanced', 'performance'] as const satisfies readonly Preference[];

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const finePercent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(2)}%`);
const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(2)} s`);

/** What `bench jobbank`'s flags ask for, checked: one readable error per bad value. */
export function jobBankOptionsFrom(options: {
  runs: string;
  seeds: string;
  firstSeed: string;
  agentless?: boolean;
  emr?: boolean;
  serverless?: boolean;
  preference?: Preference;
  learningMissBudget?: string;
  oneAtATime?: boolean;
}): Omit<JobBankOptions, 'log'> {
  const projectSettings = {
    ...(options.preference ? { preference: options.preference } : {}),
    ...(options.learningMissBudget === undefined
      ? {}
      : { learningMissBudget: parseCount('--learning-miss-budget', options.learningMissBudget, 0, 7) }),
  };
  return {
    runs: parseCount('--runs', options.runs, 2, 100),
    seeds: parseCount('--seeds', options.seeds, 1, 50),
    firstSeed: parseCount('--first-seed', options.firstSeed, 1, 1_000_000),
    agentless: options.agentless ?? false,
    ...(options.emr ? { emr: true } : {}),
    ...(options.serverless ? { serverless: true } : {}),
    ...(options.oneAtATime ? { delivery: 'one-at-a-time' as const } : {}),
    ...(Object.keys(projectSettings).length > 0 ? { projectSettings } : {}),
  };
}

function describeSettings(settings: JobBankResult['projectSettings']): string {
  const parts = Object.entries(settings).map(([name, value]) => `${name} ${value}`);
  return parts.length === 0 ? '' : `; projects: ${parts.join(', ')}`;
}

/** The serverless jobs' table: per job and seed, how the SLA meets standard mode's start-up, and the saving. */
function formatServerless(result: JobBankResult): string {
  const metrics = result.serverless;
  if (!metrics) return '';
  const table = new Table({
    head: [
      'serverless job (seed)',
      'SLA',
      'PO runtime',
      'SLA vs +4–6 min start-up',
      'runs in STANDARD',
      'mode writes',
      'saving, runs 2+',
      'saving in STANDARD',
      'SLA misses, runs 2+',
      'runs at $0 / pending / were pending',
    ],
    style: { head: [], border: [] },
  });
  const minutes = (value: number | null) => (value === null ? '–' : `${value.toFixed(1)} min`);
  for (const job of metrics.jobs)
    table.push([
      `${job.job} (${job.seed})`,
      minutes(job.slaMinutes),
      minutes(job.optimizedMinutes),
      job.sensitivity ?? '–',
      `${job.standardRuns} of ${job.runs}`,
      String(job.modeWrites),
      percent(job.savingAfterFirstRecommendation),
      percent(job.savingInStandard),
      String(job.slaMissesAfterFirstRecommendation),
      `${job.zeroCostRuns} / ${job.pendingRuns} / ${job.wasPendingRuns}`,
    ]);
  return (
    `Serverless jobs (performance-mode advice): saving on jobs whose SLA allows STANDARD, min ${percent(metrics.allowsMinSaving)} ` +
    `(median ${percent(metrics.allowsMedianSaving)}; goal ≥ 20%); jobs whose SLA does not allow it that were changed: ` +
    `${metrics.notAllowedChanged} (goal 0); runs at $0: ${metrics.zeroCostRuns}, still pending: ${metrics.pendingRuns} (goal 0)\n${table.toString()}\n`
  );
}

export function formatJobBankTable(result: JobBankResult): string {
  const { metrics } = result;
  const summary = new Table({ head: ['figure', 'value', 'goal'], style: { head: [], border: [] } });
  summary.push(
    ['projects × seeds', String(metrics.projects), ''],
    ['runs after LEARNING', String(metrics.afterLearning.runs), ''],
    ['SLA met after LEARNING', percent(metrics.afterLearning.slaMetShare), '≥ 95%'],
    ['median saving vs cold start', percent(metrics.afterLearning.medianSaving), '≥ 30%'],
    ['failed runs after LEARNING', percent(metrics.afterLearning.failureRate), ''],
    [
      'SLA met, every run after the first recommendation (runs 2+)',
      `${percent(metrics.afterFirstRecommendation.slaMetShare)} of ${metrics.afterFirstRecommendation.runs}`,
      '≥ 95%',
    ],
    [
      '  runtime ÷ SLA: p50 / p95 / p99 / max',
      (['p50', 'p95', 'p99', 'max'] as const)
        .map((q) => {
          const value = metrics.afterFirstRecommendation.runtimeOverSla[q];
          return value === null ? '–' : `${value.toFixed(2)}×`;
        })
        .join(' / '),
      'max ≤ 1.5×',
    ],
    ['  SLA met, runs 3+', percent(metrics.afterFirstRecommendation.slaMetShareRuns3On), ''],
    ['median |prediction error|', percent(metrics.prediction.medianAbsError), '≤ 10%'],
    ['p90 |prediction error|', percent(metrics.prediction.p90AbsError), ''],
    ['webhook → recommendation p50', seconds(metrics.operations.webhookToRecommendation.p50Ms), ''],
    ['webhook → recommendation p95', seconds(metrics.operations.webhookToRecommendation.p95Ms), ''],
    ...latencyParts.map((part): [string, string, string] => {
      const { p50Ms, p95Ms } = metrics.operations.webhookToRecommendation.parts[part];
      return [`  … ${part} p50 / p95`, `${seconds(p50Ms)} / ${seconds(p95Ms)}`, ''];
    }),
    ['collection failures (parked)', String(metrics.operations.collectionFailures), '0'],
    ['runs with an incomplete log', String(metrics.operations.incompleteRuns), ''],
    ['reverts', String(metrics.operations.reverts), ''],
    [
      'writes the platform refused / Setpoint refused before writing',
      `${result.validity.refusedByPlatform} / ${result.validity.refusedBySetpoint}`,
      '0 / 0',
    ],
    [
      'median |estimated − billed| DBU cost',
      `${finePercent(result.billing.medianAbsError)} (${result.billing.runs} runs, ${result.billing.restatedRuns} restated)`,
      '≤ 2%',
    ],
    [
      '  … estimated with a learned launch delay',
      `${finePercent(result.billing.learned.medianAbsError)} (${result.billing.learned.runs} runs; delay ${result.billing.launchDelaysMs
        .map((delay) => (delay === null ? 'none' : `${(delay / 1000).toFixed(0)} s`))
        .join(', ')})`,
      '',
    ],
    [
      'one run through system tables',
      result.billing.collection
        ? `${result.billing.collection.statements} statements, ${seconds(result.billing.collection.wallMs)}`
        : '–',
      '≤ 3 statements, ≤ 5 s',
    ],
  );
  const perJob = new Table({
    head: [
      'job',
      'platform',
      'median saving (last run)',
      'median saving (runs 2+)',
      'SLA met after LEARNING',
      'median |prediction error|',
    ],
    style: { head: [], border: [] },
  });
  for (const [name, entry] of Object.entries(metrics.perJob)) {
    perJob.push([
      name,
      entry.platform,
      percent(entry.medianSaving),
      percent(entry.medianSavingAfterFirstRecommendation),
      percent(entry.slaMetShare),
      percent(entry.medianAbsPredictionError),
    ]);
  }
  for (const [platform, entry] of Object.entries(metrics.perPlatform)) {
    if (Object.keys(metrics.perPlatform).length < 2) break;
    perJob.push([
      `all ${platform} (${entry.projects} projects)`,
      platform,
      percent(entry.medianSaving),
      percent(entry.medianSavingAfterFirstRecommendation),
      percent(entry.slaMetShare),
      percent(entry.medianAbsPredictionError),
    ]);
  }
  const dearer = metrics.dearerThanColdStart.map(
    (entry) =>
      `${entry.project} (seed ${entry.seed}) ${percent(entry.saving)}: ${entry.clusterChanged ? 'on a cluster Setpoint chose' : 'on its cold-start cluster, never changed'}`,
  );
  const refused = result.validity.examples;
  const dearerText = `dearer than its cold start: ${dearer.length === 0 ? 'none' : dearer.join('; ')}\n${refused.length === 0 ? '' : `refused writes: ${refused.join('; ')}\n`}`;
  return (
    `Job Bank through the service${result.agentless ? ' (agentless: system tables only)' : ''}${result.emr ? ' with EMR workloads' : ''}${result.delivery === 'one-at-a-time' ? ', runs delivered one at a time' : ''}: ${result.jobs} jobs × ${result.seeds.length} seeds × ${result.runsPerJob} runs ` +
    `(seeds ${result.seeds.join(', ')}${describeSettings(result.projectSettings)}), ${result.wallSeconds.toFixed(0)} s\n${summary.toString()}\n${perJob.toString()}\n${dearerText}${formatServerless(result)}`
  );
}

export function registerBenchJobBankCommand(bench: Command): void {
  bench
    .command('jobbank')
    .description(
      'run every emulator job through the real service path (webhooks, collection, parsing, optimizer, auto-apply) from random cold starts',
    )
    .option('--runs <count>', 'runs per job, counting the cold start', '12')
    .option('--seeds <count>', 'random cold starts per job (each its own emulated workspace)', '3')
    .option('--first-seed <n>', 'seed of the first cold start', '1')
    .option('--agentless', 'no cluster log delivery: collect every run through system tables only')
    .option(
      '--emr',
      'also an emulated EMR account with recurring workloads on transient clusters (figures per platform)',
    )
    .option(
      '--serverless',
      "also the Job Bank's three serverless jobs: the performance-mode advice's saving, SLA and $0 figures, reported on their own",
    )
    .addOption(
      new Option(
        '--preference <preference>',
        "every project's preference (default: the project default)",
      ).choices(preferences),
    )
    .option(
      '--learning-miss-budget <n>',
      "every project's learning-run SLA-miss budget, 0–7 (the project setting learningMissBudget; default 0: safe learning; 1–7: the standard search)",
    )
    .option(
      '--one-at-a-time',
      "deliver each round's runs one at a time: a run starts only once the previous run's recommendation is stored and the queue is empty, so webhook → recommendation is a run alone's latency (default: every job's run at the round's instant, a burst)",
    )
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench jobbank
  setpoint bench jobbank --runs 8 --seeds 1 --json
  setpoint bench jobbank --runs 8 --seeds 1 --agentless --preference balanced
  setpoint bench jobbank --runs 10 --seeds 1 --agentless --learning-miss-budget 0
  setpoint bench jobbank --runs 10 --seeds 1 --emr
  setpoint bench jobbank --runs 8 --seeds 1 --serverless
  setpoint bench jobbank --runs 4 --seeds 1 --one-at-a-time --json

Each seed starts an emulated workspace, rewrites every job's cluster to a random plausible size, imports
the jobs with auto-apply on and runs them round after round. Besides the optimizer's figures it reports
the service's own: webhook-to-recommendation latency, parked collections, incomplete logs and reverts.
By default a round's runs arrive together, so a run's latency includes the other runs' work on the
workers (a burst's throughput); --one-at-a-time measures each run alone. It waits for the previous run
rather than spacing runs by a fixed delay, which would overlap runs on a slow machine and idle on a fast one.`,
    )
    .action(async (options) => {
      const result = await runJobBankBench({
        ...jobBankOptionsFrom(options),
        log: (line) => {
          if (!options.json) process.stderr.write(`${line}\n`);
        },
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(result, null, 2)}\n` : formatJobBankTable(result),
      );
    });
}
