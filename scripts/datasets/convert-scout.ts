/**
 * Converts the Scout multi-node runs (oxhead/scout, MIT) to Setpoint's sweep CSV:
 *
 *   npx tsx scripts/datasets/convert-scout.ts ../shared/datasets/scout/scout_multinode_runs.csv \
 *     tests/fixtures/datasets/scout-sweep.csv
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { convertScoutRuns } from '@setpoint/bench/sweep/convert-scout';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: convert-scout.ts <scout_multinode_runs.csv> <out.csv>\n');
  process.exit(2);
}
const csv = convertScoutRuns(readFileSync(input, 'utf8'), input);
writeFileSync(output, csv);
process.stdout.write(`wrote ${csv.trim().split('\n').length - 1} runs to ${output}\n`);
