/**
 * Writes the synthetic configuration sweep (model: packages/bench/src/sweep/synthetic-sweep.ts) in the canonical CSV:
 *
 *   npx tsx scripts/datasets/generate-synthetic-sweep.ts tests/fixtures/datasets/synthetic-sweep.csv
 */
import { writeFileSync } from 'node:fs';
import { syntheticFixtureOptions, syntheticSweepCsv } from '@setpoint/bench/sweep/synthetic-sweep';

const output = process.argv[2];
if (!output) {
  process.stderr.write('usage: generate-synthetic-sweep.ts <out.csv>\n');
  process.exit(2);
}
const csv = syntheticSweepCsv(syntheticFixtureOptions);
writeFileSync(output, csv);
process.stdout.write(`wrote ${csv.trim().split('\n').length - 1} runs to ${output}\n`);
