/**
 * How well one workload's runtime surface predicts its sibling on another data size, read at equal clusters
 * and on a cluster 3/4, 2/3 or 1/2 the size: workloads named `<name>-bigdata`/`<name>-huge`
 * (HiBench sizes, Scout) or `<name>-small`/`<name>-large` (the emulator set). Prints, per pair, the mean
 * and standard deviation of ln(runtime) of the larger workload on n nodes minus the smaller on f × n nodes
 * (same instance type). A small deviation at some f ≠ 1 is the data-scale reading the runtime model's
 * analogs use (docs/optimizer.md, "Data scales").
 *
 *   npx tsx scripts/datasets/data-scale-pairs.ts tests/fixtures/datasets/scout-sweep.csv
 */
import { readSweepCsv } from '@setpoint/bench/sweep/read-sweep-csv';
import { groupSweepRows, type SweepWorkload } from '@setpoint/bench/sweep/sweep-dataset';
import { configurationName } from 'setpoint/optimizer/configuration-name';
import type { Hardware } from 'setpoint/optimizer/types';

const file = process.argv[2];
if (!file) throw new Error('usage: data-scale-pairs.ts <sweep.csv>');
const workloads = groupSweepRows(await readSweepCsv(file));
const byName = new Map(workloads.map((workload) => [workload.name, workload]));
const siblings: Array<[larger: string, smaller: string]> = [
  ['-bigdata', '-huge'],
  ['-large', '-small'],
];

function configurationKey(hardware: Hardware, nodes: number): string {
  return `${configurationName(hardware)}\u0000${nodes}`;
}

function logRuntimes(workload: SweepWorkload): Map<string, number> {
  const out = new Map<string, number>();
  for (const config of workload.configs) {
    if (config.meanRuntimeS === undefined) continue;
    out.set(configurationKey(config.candidate, config.candidate.nodes), Math.log(config.meanRuntimeS));
  }
  return out;
}

function spread(values: readonly number[]): string {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const sd = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
  return `mean ${mean.toFixed(2)} sd ${sd.toFixed(2)} (${values.length})`;
}

for (const larger of workloads) {
  for (const [largeSuffix, smallSuffix] of siblings) {
    if (!larger.name.endsWith(largeSuffix)) continue;
    const smaller = byName.get(larger.name.slice(0, -largeSuffix.length) + smallSuffix);
    if (!smaller) continue;
    const small = logRuntimes(smaller);
    const columns = [1, 3 / 4, 2 / 3, 1 / 2].map((factor) => {
      const differences: number[] = [];
      for (const config of larger.configs) {
        if (config.meanRuntimeS === undefined) continue;
        const other = small.get(configurationKey(config.candidate, config.candidate.nodes * factor));
        if (other !== undefined) differences.push(Math.log(config.meanRuntimeS) - other);
      }
      return differences.length >= 5
        ? `f=${factor.toFixed(2)}: ${spread(differences)}`
        : `f=${factor.toFixed(2)}: —`;
    });
    process.stdout.write(`${larger.name} vs ${smaller.name}: ${columns.join(' | ')}\n`);
  }
}
