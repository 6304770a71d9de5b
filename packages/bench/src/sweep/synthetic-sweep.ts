import { createRandom } from '@setpoint/foundation/random';
import { type SweepCsvRow, sweepColumns } from './schema.js';

interface InstanceShape {
  type: string;
  vcpus: number;
  memoryGib: number;
  price: number;
  /** Relative per-core speed of the family (newer or compute-tuned cores are faster). */
  speed: number;
}

/** Families and sizes deliberately unlike Scout's c4/m4/r4 × large…2xlarge, with 2023-style prices. */
const families = [
  { name: 'c6i', memoryPerCore: 2, pricePerCore: 0.0425, speed: 1.15 },
  { name: 'm6i', memoryPerCore: 4, pricePerCore: 0.048, speed: 1.1 },
  { name: 'r6i', memoryPerCore: 8, pricePerCore: 0.063, speed: 1.1 },
  { name: 'm5a', memoryPerCore: 4, pricePerCore: 0.043, speed: 0.85 },
];
const sizes = [
  { name: 'xlarge', vcpus: 4 },
  { name: '2xlarge', vcpus: 8 },
  { name: '4xlarge', vcpus: 16 },
];
const nodeCounts = [2, 3, 4, 6, 8, 12, 16, 24];

export const syntheticInstances: InstanceShape[] = families.flatMap((family) =>
  sizes.map((size) => ({
    type: `${family.name}.${size.name}`,
    vcpus: size.vcpus,
    memoryGib: size.vcpus * family.memoryPerCore,
    price: Math.round(size.vcpus * family.pricePerCore * 1000) / 1000,
    speed: family.speed,
  })),
);

export interface SyntheticSweepOptions {
  workloads: number;
  repeats: number;
  seed: number;
  /** Run-to-run noise as a coefficient of variation. */
  noise: number;
  timeoutS: number;
}

/**
 * A configuration sweep from a simple physical model of a Spark job, for checking that the optimizer
 * generalizes beyond the data it was developed on: runtime = startup + driver-side serial time
 * + parallel CPU work / (cores × family speed), stretched by spill when cluster memory is below the
 * working set (OOM below a fraction of it), + shuffle time that grows with log(nodes) and a per-node
 * coordination cost, + a per-task-wave quantization term. Each workload draws its own parameters.
 */
export function generateSyntheticSweep(options: SyntheticSweepOptions): SweepCsvRow[] {
  const random = createRandom(options.seed);
  const uniform = (low: number, high: number) => low + (high - low) * random.next();
  const logUniform = (low: number, high: number) => Math.exp(uniform(Math.log(low), Math.log(high)));
  const rows: SweepCsvRow[] = [];
  for (let w = 0; w < options.workloads; w++) {
    const workload = {
      startup: uniform(40, 120),
      serial: logUniform(10, 400),
      coreSeconds: logUniform(1e4, 2e5),
      workingSetGib: logUniform(10, 400),
      oomFraction: uniform(0.2, 0.45),
      spillPenalty: uniform(0.5, 3),
      shuffle: logUniform(5, 200),
      perNode: uniform(0.5, 8),
      memoryBandwidthBound: uniform(0, 0.4),
      tasks: Math.round(logUniform(100, 4000)),
    };
    const name = `synthetic-${String(w + 1).padStart(2, '0')}`;
    for (const instance of syntheticInstances) {
      for (const nodes of nodeCounts) {
        const cores = nodes * instance.vcpus;
        const memory = nodes * instance.memoryGib;
        const waves = Math.ceil(workload.tasks / cores) / (workload.tasks / cores);
        const memoryRatio = memory / workload.workingSetGib;
        const spill = memoryRatio >= 1 ? 1 : 1 + workload.spillPenalty * (1 - memoryRatio);
        const speed =
          instance.speed * (1 - workload.memoryBandwidthBound * (instance.vcpus >= 16 ? 0.15 : 0));
        const compute = ((workload.coreSeconds / (cores * speed)) * waves * spill) / 1;
        const base =
          workload.startup +
          workload.serial +
          compute +
          workload.shuffle * Math.log2(nodes + 1) +
          workload.perNode * nodes;
        for (let r = 0; r < options.repeats; r++) {
          const runtime = base * Math.exp(options.noise * random.normal());
          const outOfMemory = memoryRatio < workload.oomFraction;
          const timedOut = runtime > options.timeoutS;
          const completed = !outOfMemory && !timedOut;
          rows.push({
            workload: name,
            instance_type: instance.type,
            nodes,
            vcpus_per_node: instance.vcpus,
            memory_gib_per_node: instance.memoryGib,
            price_usd_per_node_hour: instance.price,
            runtime_s:
              Math.round(
                (outOfMemory ? runtime * uniform(0.1, 0.6) : Math.min(runtime, options.timeoutS)) * 1000,
              ) / 1000,
            completed,
          });
        }
      }
    }
  }
  return rows;
}

/** The options `tests/fixtures/datasets/synthetic-sweep.csv` was generated with. */
export const syntheticFixtureOptions: SyntheticSweepOptions = {
  workloads: 16,
  repeats: 2,
  seed: 20_261_121,
  noise: 0.04,
  timeoutS: 7200,
};

/** The canonical CSV text of a synthetic sweep. */
export function syntheticSweepCsv(options: SyntheticSweepOptions): string {
  const lines = generateSyntheticSweep(options).map((row) =>
    sweepColumns.map((column) => String(row[column])).join(','),
  );
  return `${[sweepColumns.join(','), ...lines].join('\n')}\n`;
}
