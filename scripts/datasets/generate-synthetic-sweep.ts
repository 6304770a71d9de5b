/**
 * Writes a synthetic configuration sweep (see src/bench/sweep/synthetic-sweep.ts) in the canonical CSV:
 *
 *   npx tsx scripts/datasets/generate-synthetic-sweep.ts tests/fixtures/datasets/synthetic-sweep.csv
 */
import { writeFileSync } from 'node:fs';
import { sweepColumns } from '../../src/bench/sweep/schema.js';
import { generateSyntheticSweep } from '../../src/bench/sweep/synthetic-sweep.js';

const output = process.argv[2];
if (!output) {
  process.stderr.write('usage: generate-synthetic-sweep.ts <out.csv>\n');
  process.exit(2);
}
const rows = generateSyntheticSweep({
  workloads: 16,
  repeats: 2,
  seed: 20_261_121,
  noise: 0.04,
  timeoutS: 7200,
});
const lines = rows.map((row) => sweepColumns.map((column) => String(row[column])).join(','));
writeFileSync(output, `${[sweepColumns.join(','), ...lines].join('\n')}\n`);
process.stdout.write(`wrote ${rows.length} runs to ${output}\n`);
