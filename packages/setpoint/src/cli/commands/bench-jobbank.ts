import type { Command } from '@commander-js/extra-typings';
import Table from 'cli-table3';
import { type JobBankResult, runJobBankBench } from '../../bench/jobbank/run-jobbank-bench.js';
import { parseCount } from '../option-values.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(2)} s`);

export function formatJobBankTable(result: JobBankResult): string {
  const { metrics } = result;
  const summary = new Table({ head: ['figure', 'value', 'goal'], style: { head: [], border: [] } });
  summary.push(
    ['projects × seeds', String(metrics.projects), ''],
    ['runs after LEARNING', String(metrics.afterLearning.runs), ''],
    ['SLA met after LEARNING', percent(metrics.afterLearning.slaMetShare), '≥ 95%'],
    ['median saving vs cold start', percent(metrics.afterLearning.medianSaving), '≥ 30%'],
    ['failed runs after LEARNING', percent(metrics.afterLearning.failureRate), ''],
    ['median |prediction error|', percent(metrics.prediction.medianAbsError), '≤ 10%'],
    ['p90 |prediction error|', percent(metrics.prediction.p90AbsError), ''],
    ['webhook → recommendation p50', seconds(metrics.operations.webhookToRecommendation.p50Ms), ''],
    ['webhook → recommendation p95', seconds(metrics.operations.webhookToRecommendation.p95Ms), ''],
    ['collection failures (parked)', String(metrics.operations.collectionFailures), '0'],
    ['runs with an incomplete log', String(metrics.operations.incompleteRuns), ''],
    ['reverts', String(metrics.operations.reverts), ''],
    [
      'median |estimated − billed| DBU cost',
      `${percent(result.billing.medianAbsError)} (${result.billing.runs} runs, ${result.billing.restatedRuns} restated)`,
      '≤ 2%',
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
    head: ['job', 'median saving', 'SLA met after LEARNING'],
    style: { head: [], border: [] },
  });
  for (const [name, entry] of Object.entries(metrics.perJob)) {
    perJob.push([name, percent(entry.medianSaving), percent(entry.slaMetShare)]);
  }
  return (
    `Job Bank through the service${result.agentless ? ' (agentless: system tables only)' : ''}: ${result.jobs} jobs × ${result.seeds.length} seeds × ${result.runsPerJob} runs ` +
    `(seeds ${result.seeds.join(', ')}), ${result.wallSeconds.toFixed(0)} s\n${summary.toString()}\n${perJob.toString()}\n`
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
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench jobbank
  setpoint bench jobbank --runs 8 --seeds 1 --json

Each seed starts an emulated workspace, rewrites every job's cluster to a random plausible size, imports
the jobs with auto-apply on and runs them round after round. Besides the optimizer's figures it reports
the service's own: webhook-to-recommendation latency, parked collections, incomplete logs and reverts.`,
    )
    .action(async (options) => {
      const runs = parseCount('--runs', options.runs, 2, 100);
      const seeds = parseCount('--seeds', options.seeds, 1, 50);
      const firstSeed = parseCount('--first-seed', options.firstSeed, 1, 1_000_000);
      const result = await runJobBankBench({
        runs,
        seeds,
        firstSeed,
        agentless: options.agentless ?? false,
        log: (line) => {
          if (!options.json) process.stderr.write(`${line}\n`);
        },
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(result, null, 2)}\n` : formatJobBankTable(result),
      );
    });
}
