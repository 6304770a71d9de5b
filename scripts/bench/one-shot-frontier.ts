/**
 * How far a first recommendation made from one run can get on a sweep dataset, measured with a rule
 * simpler than Setpoint's model and free to use every other workload's full sweep (leave-one-workload-out):
 * a reference line for the one-shot goals of `bench sweep` (docs/benchmarks.md, "One-shot: what one run
 * allows").
 *
 *   npx tsx scripts/bench/one-shot-frontier.ts --dataset tests/fixtures/datasets/scout-sweep.csv [--sla 1.1]
 *
 * For each workload held out and each configuration it completed as the cold start (SLA = sla × its
 * runtime), the k other workloads whose runtime on that configuration is closest to the cold start's are
 * its neighbours. A configuration qualifies when, among the neighbours that ran it, at least the required
 * share met the SLA relative to their own run on the cold-start configuration and their median cost ratio
 * is below 0.97; the rule moves to the qualifying configuration of lowest median cost ratio, else stays.
 * The move is then scored on the held-out workload's own measurements.
 */
import { readSweepCsv } from '@setpoint/bench/sweep/read-sweep-csv';
import { groupSweepRows, type MeasuredConfig, type SweepWorkload } from '@setpoint/bench/sweep/sweep-dataset';
import { median } from '@setpoint/foundation/statistics';

interface Outcome {
  searches: number;
  cheaper: number;
  violations: number;
}

const maxCostRatio = 0.97;

function optionOf(name: string, fallback?: string): string {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? process.argv[index + 1] : fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

function completedById(workload: SweepWorkload): Map<string, MeasuredConfig> {
  return new Map(
    workload.configs
      .filter((config) => config.meanRuntimeS !== undefined)
      .map((config) => [config.candidate.id, config]),
  );
}

function playRule(
  workloads: readonly SweepWorkload[],
  sla: number,
  k: number,
  requiredShare: number,
): Outcome {
  const measured = workloads.map(completedById);
  const outcome: Outcome = { searches: 0, cheaper: 0, violations: 0 };
  measured.forEach((own, heldOut) => {
    for (const [startId, start] of own) {
      outcome.searches++;
      const startRuntime = start.meanRuntimeS as number;
      const neighbours = measured
        .filter((other, index) => index !== heldOut && other.has(startId))
        .sort(
          (a, b) =>
            Math.abs(Math.log((a.get(startId)?.meanRuntimeS as number) / startRuntime)) -
            Math.abs(Math.log((b.get(startId)?.meanRuntimeS as number) / startRuntime)),
        )
        .slice(0, k);
      let best: { config: MeasuredConfig; costRatio: number } | undefined;
      for (const config of workloads[heldOut]?.configs ?? []) {
        const id = config.candidate.id;
        if (id === startId) continue;
        const ran = neighbours.filter((other) => other.has(id));
        if (ran.length < Math.min(3, neighbours.length)) continue;
        const met = ran.filter(
          (other) =>
            (other.get(id)?.meanRuntimeS as number) <= sla * (other.get(startId)?.meanRuntimeS as number),
        ).length;
        const costRatio =
          median(
            ran.map(
              (other) => (other.get(id)?.meanCostUsd as number) / (other.get(startId)?.meanCostUsd as number),
            ),
          ) ?? Number.POSITIVE_INFINITY;
        if (
          met / ran.length >= requiredShare &&
          costRatio < maxCostRatio &&
          (!best || costRatio < best.costRatio)
        )
          best = { config, costRatio };
      }
      if (!best) continue;
      const runtime = best.config.meanRuntimeS;
      if (runtime === undefined || runtime > sla * startRuntime) outcome.violations++;
      else if ((best.config.meanCostUsd as number) < (start.meanCostUsd as number)) outcome.cheaper++;
    }
  });
  return outcome;
}

const dataset = optionOf('--dataset');
const sla = Number(optionOf('--sla', '1.1'));
const workloads = groupSweepRows(await readSweepCsv(dataset));
const percent = (count: number, of: number) => `${((100 * count) / of).toFixed(1)}%`;
console.log(`${dataset}: ${workloads.length} workloads, SLA ${sla} × the cold start's runtime`);
console.log('| neighbours | required share met | searches | cheaper | SLA violations |');
console.log('|---|---|---|---|---|');
for (const k of [5, 8, workloads.length - 1]) {
  for (const requiredShare of [0.9, 1]) {
    const { searches, cheaper, violations } = playRule(workloads, sla, k, requiredShare);
    console.log(
      `| ${k === workloads.length - 1 ? `all ${k}` : k} | ${requiredShare} | ${searches} | ${percent(cheaper, searches)} | ${percent(violations, searches)} |`,
    );
  }
}
