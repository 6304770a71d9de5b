import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import Table from 'cli-table3';
import { parseCount } from 'setpoint/cli/option-values';
import { runSimBench, type SimBenchResult } from '../sim/run-sim-bench.js';
import { oneShotCostChangeSvg, predictionErrorSvg } from '../sim/svg-plots.js';

/** A tight SLA (a factor below 1: faster than the cold start) is a scenario the bench must exercise. */
export function parseSlaFactor(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ValidationError(
      'INVALID_OPTION',
      `--sla expects a positive factor such as 1.25 (or 0.7 for a tight SLA), got "${text}"`,
    );
  }
  return value;
}

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

export function formatSimTable(result: SimBenchResult): string {
  const summary = new Table({ head: ['figure', 'value', 'goal'], style: { head: [], border: [] } });
  const everyRun = result.afterFirstRecommendation;
  const over = everyRun.runtimeOverSla;
  const ratio = (value: number | null) => (value === null ? '–' : `${value.toFixed(2)}×`);
  summary.push(
    [
      `every run after the first recommendation (${everyRun.runs}): SLA missed`,
      percent(everyRun.slaViolationRate),
      result.slaFactor < 1 ? '' : '≤ 5%',
    ],
    [
      '  runtime ÷ SLA: p50 / p95 / p99 / max',
      `${ratio(over.p50)} / ${ratio(over.p95)} / ${ratio(over.p99)} / ${ratio(over.max)}`,
      '',
    ],
    ['  captured saving (of the hindsight optimum)', percent(everyRun.capturedSaving), ''],
    ['runs after LEARNING', String(result.afterLearning.runs), ''],
    [
      'SLA met after LEARNING',
      percent(result.afterLearning.slaMetShare),
      result.slaFactor < 1 ? '≥ 90%' : '≥ 95%',
    ],
    [
      `  on feasible loops only (${result.feasibleOnly.loops} of ${result.jobs * result.seeds})`,
      percent(result.feasibleOnly.slaMetShare),
      '',
    ],
    [
      '    at best (most reliable cluster, in hindsight)',
      percent(result.feasibleOnly.ceilingSlaMetShare),
      '',
    ],
    [
      `  infeasible loops said infeasible (${result.feasibleOnly.infeasibleLoops.length})`,
      `${result.infeasibleReported.reported.length}; false alarms ${result.infeasibleReported.falseAlarms.length}`,
      'every one',
    ],
    [
      '  on them, runs > 1.05 × the cheapest run before',
      percent(result.infeasibleReported.dearerThanCheapestMiss.share),
      '0%',
    ],
    ['median saving vs cold start', percent(result.afterLearning.medianSaving), '≥ 30%'],
    [
      `recommendations Databricks would refuse (of ${result.validity.checked})`,
      String(result.validity.invalid),
      '0',
    ],
    ['failed runs after LEARNING', percent(result.afterLearning.failureRate), ''],
    ['one-shot: share cheaper', percent(result.oneShot.shareCheaper), ''],
    ['one-shot: median saving', percent(result.oneShot.medianSaving), ''],
    ['one-shot: SLA met', percent(result.oneShot.slaMetShare), ''],
    ['median |prediction error|', percent(result.prediction.medianAbsError), '≤ 10%'],
    ['p90 |prediction error|', percent(result.prediction.p90AbsError), ''],
    ...result.triedPrediction.map((tried) => [
      `tried ≥ ${tried.minPriorRuns}× (${tried.runs} runs): median |runtime| / |cost error|`,
      `${percent(tried.medianRuntimeError)} / ${percent(tried.medianCostError)}`,
      '≤ 5%',
    ]),
  );
  const perJob = new Table({
    head: ['job', 'median saving after LEARNING', 'SLA met after LEARNING', 'runs on Photon'],
    style: { head: [], border: [] },
  });
  for (const [name, entry] of Object.entries(result.perJob)) {
    perJob.push([
      name,
      percent(entry.medianSavingAfterLearning),
      percent(entry.slaMetShare),
      percent(entry.photonShare),
    ]);
  }
  const infeasible = result.feasibleOnly.infeasibleLoops;
  return (
    `Simulated Job Bank: ${result.jobs} jobs × ${result.seeds} seeds × ${result.runsPerJob} runs, ` +
    `SLA ${result.slaFactor} × cold-start runtime\n${summary.toString()}\n` +
    (infeasible.length > 0
      ? `No configuration of the candidate space meets the SLA (median of its runs) for: ${infeasible.join(', ')}\n`
      : '') +
    (result.validity.examples.length > 0
      ? `Recommendations Databricks would refuse: ${result.validity.examples.join('; ')}\n`
      : '') +
    `${perJob.toString()}\n`
  );
}

export function registerBenchSimCommand(bench: Command): void {
  bench
    .command('sim')
    .description(
      "run the service's recommender in a closed loop against the emulator's Job Bank physics: real event logs, real costing",
    )
    .option('--jobs <names>', 'comma-separated shipped workloads, or "all"', 'all')
    .option('--runs <count>', 'runs per job, counting the cold start', '12')
    .option('--seeds <count>', 'seeds per job (each a different noise and spot history)', '5')
    .option('--sla <factor>', 'SLA as a factor of the cold-start runtime', '1.25')
    .option('--plots <dir>', 'write one-shot-cost-change.svg and prediction-error.svg into this folder')
    .option('--json', 'print the results as JSON (without the per-run records)')
    .addHelpText(
      'after',
      `
Examples:
  setpoint bench sim
  setpoint bench sim --jobs cpu-bound-ml,skewed-join --runs 8 --seeds 2 --json
  setpoint bench sim --plots docs/benchmarks/sim

Each run is simulated, its event log written and parsed by the event log engine, costed by the cost
engine, and the recommendation becomes the next run's cluster. Savings compare each run with the cold-start
cluster at the same run (same data size and noise); results are deterministic for the seeds.`,
    )
    .action(async (options) => {
      const runs = parseCount('--runs', options.runs, 2, 200);
      const seeds = parseCount('--seeds', options.seeds, 1, 1000);
      const slaFactor = parseSlaFactor(options.sla);
      const jobs = options.jobs
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      const result = await runSimBench({ jobs, runs, seeds, slaFactor });
      if (options.plots) {
        mkdirSync(options.plots, { recursive: true });
        writeFileSync(join(options.plots, 'one-shot-cost-change.svg'), oneShotCostChangeSvg(result.records));
        writeFileSync(join(options.plots, 'prediction-error.svg'), predictionErrorSvg(result.records));
      }
      const { records: _records, ...summary } = result;
      process.stdout.write(options.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSimTable(result));
    });
}
