/**
 * How well safe expansion's perfect-scaling bound holds on a sweep dataset, by the kind of step: fewer of
 * the same nodes, fewer but larger nodes of the family, or more but smaller ones (docs/optimizer.md, "Safe
 * expansion"; docs/benchmarks.md, "Safe expansion changes only the node count").
 *
 *   npx tsx scripts/bench/expansion-pairs.ts --dataset tests/fixtures/datasets/scout-sweep.csv
 *
 * Every pair of a workload's configurations A → B the bound would consider (the same instance family, B
 * with fewer cores but at least two thirds of A's, and at least A's memory per core), with the SLA at the
 * bound's edge: A's slowest completed run r_A scaled perfectly to B's cores, r_A × c_A / c_B. Each of B's
 * runs is one outcome, measured as its runtime ÷ that bound (a failed run: infinite). Reported per kind:
 * the pairs, the share of runs above 1.1 × the bound (what the margin 1.1 lets through) and above 1.5 ×,
 * and the 95th percentile.
 */
import { readSweepCsv } from '@setpoint/bench/sweep/read-sweep-csv';
import { groupSweepRows, type MeasuredConfig } from '@setpoint/bench/sweep/sweep-dataset';
import { quantile } from '@setpoint/foundation/statistics';
import { memoryPerCore, totalCores } from 'setpoint/optimizer/config-features';
import { instanceFamily } from 'setpoint/optimizer/instance-traits';
import { defaultSafeExpansion } from 'setpoint/optimizer/safe-expansion';

type StepKind = 'same nodes' | 'larger nodes' | 'smaller nodes';

function optionOf(name: string): string {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

function kindOf(from: MeasuredConfig, to: MeasuredConfig): StepKind {
  if (from.candidate.instanceType === to.candidate.instanceType) return 'same nodes';
  return to.candidate.vcpusPerNode > from.candidate.vcpusPerNode ? 'larger nodes' : 'smaller nodes';
}

function slowestCompleted(config: MeasuredConfig): number | undefined {
  const completed = config.runs.filter((run) => run.completed).map((run) => run.runtimeS);
  return completed.length === config.runs.length && completed.length > 0 ? Math.max(...completed) : undefined;
}

const dataset = optionOf('--dataset');
const workloads = groupSweepRows(await readSweepCsv(dataset));
const ratios = new Map<StepKind, number[]>();
const pairs = new Map<StepKind, number>();
for (const workload of workloads) {
  for (const from of workload.configs) {
    const slowest = slowestCompleted(from);
    if (slowest === undefined) continue;
    const fromCores = totalCores(from.candidate);
    for (const to of workload.configs) {
      const toCores = totalCores(to.candidate);
      if (toCores >= fromCores || toCores < defaultSafeExpansion.minCoreShare * fromCores) continue;
      if (instanceFamily(to.candidate) !== instanceFamily(from.candidate)) continue;
      if (memoryPerCore(to.candidate) < memoryPerCore(from.candidate)) continue;
      const bound = (slowest * fromCores) / toCores;
      const kind = kindOf(from, to);
      pairs.set(kind, (pairs.get(kind) ?? 0) + 1);
      const outcomes = ratios.get(kind) ?? [];
      for (const run of to.runs)
        outcomes.push(run.completed ? run.runtimeS / bound : Number.POSITIVE_INFINITY);
      ratios.set(kind, outcomes);
    }
  }
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
console.log(`${dataset}: ${workloads.length} workloads`);
for (const [kind, outcomes] of ratios) {
  const above = (factor: number) => outcomes.filter((ratio) => ratio > factor).length;
  console.log(
    `${kind.padEnd(13)} ${String(pairs.get(kind)).padStart(6)} pairs  ${String(outcomes.length).padStart(6)} runs  ` +
      `> 1.1 × bound ${percent(above(1.1), outcomes.length)}  > 1.5 × ${percent(above(1.5), outcomes.length)}  ` +
      `p95 ${quantile(outcomes, 0.95).toFixed(2)}`,
  );
}
