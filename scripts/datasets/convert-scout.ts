/**
 * Converts the Scout multi-node runs (oxhead/scout, MIT) to Setpoint's sweep CSV.
 * Workload identity is workload + framework + input size, e.g. "join-spark-bigdata".
 *
 *   npx tsx scripts/datasets/convert-scout.ts ../shared/datasets/scout/scout_multinode_runs.csv \
 *     tests/fixtures/datasets/scout-sweep.csv
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { sweepColumns } from '../../src/bench/sweep/schema.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: convert-scout.ts <scout_multinode_runs.csv> <out.csv>\n');
  process.exit(2);
}

const lines = readFileSync(input, 'utf8').trim().split(/\r?\n/);
const header = (lines[0] ?? '').split(',');
const column = (name: string): number => {
  const index = header.indexOf(name);
  if (index < 0) throw new Error(`${input}: no column ${name}`);
  return index;
};
const at = {
  workload: column('workload'),
  framework: column('framework'),
  datasize: column('datasize'),
  vmType: column('vm_type'),
  nodes: column('nodes'),
  vcpus: column('vcpus_per_node'),
  memory: column('mem_gib_per_node'),
  completed: column('completed'),
  elapsed: column('elapsed_time_s'),
  price: column('price_usd_per_node_hour'),
};

const rows = lines.slice(1).map((line) => {
  const f = line.split(',');
  const field = (index: number) => f[index] ?? '';
  return [
    `${field(at.workload)}-${field(at.framework)}-${field(at.datasize)}`,
    field(at.vmType),
    field(at.nodes),
    field(at.vcpus),
    field(at.memory),
    field(at.price),
    Number(field(at.elapsed)).toFixed(3),
    field(at.completed).toLowerCase(),
  ];
});
rows.sort((a, b) => a.join(',').localeCompare(b.join(','), 'en'));
writeFileSync(output, `${[sweepColumns.join(','), ...rows.map((row) => row.join(','))].join('\n')}\n`);
process.stdout.write(`wrote ${rows.length} runs to ${output}\n`);
