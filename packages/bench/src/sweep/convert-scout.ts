import { ValidationError } from '@setpoint/foundation/errors';
import { sweepColumns } from './schema.js';

/**
 * Converts Scout's flattened multi-node runs (oxhead/scout, MIT) to the canonical sweep CSV. Workload
 * identity is workload + framework + input size ("join-spark-bigdata"); runs are sorted for a stable file.
 */
export function convertScoutRuns(text: string, source: string): string {
  const lines = text.trim().split(/\r?\n/);
  const header = (lines[0] ?? '').split(',');
  const column = (name: string): number => {
    const index = header.indexOf(name);
    if (index < 0) throw new ValidationError('SCOUT_CSV_HEADER', `${source}:1: no column ${name}`);
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
    const fields = line.split(',');
    const field = (index: number) => fields[index] ?? '';
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
  return `${[sweepColumns.join(','), ...rows.map((row) => row.join(','))].join('\n')}\n`;
}
