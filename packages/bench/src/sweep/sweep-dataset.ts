import { hardwareOfName } from 'setpoint/optimizer/configuration-name';
import type { Candidate } from 'setpoint/optimizer/types';
import type { SweepCsvRow } from './schema.js';

export interface MeasuredRun {
  runtimeS: number;
  completed: boolean;
}

/** One configuration of one workload with every run measured on it. */
export interface MeasuredConfig {
  candidate: Candidate;
  runs: MeasuredRun[];
  /** Mean runtime and cost of the completed runs (undefined when none completed). */
  meanRuntimeS: number | undefined;
  meanCostUsd: number | undefined;
}

export interface SweepWorkload {
  name: string;
  configs: MeasuredConfig[];
}

export function candidateId(instanceType: string, nodes: number): string {
  return `${nodes}x${instanceType}`;
}

/** Groups runs by workload and configuration, in first-seen order. */
export function groupSweepRows(rows: readonly SweepCsvRow[]): SweepWorkload[] {
  const workloads = new Map<string, Map<string, MeasuredConfig>>();
  for (const row of rows) {
    const configs = workloads.get(row.workload) ?? new Map<string, MeasuredConfig>();
    workloads.set(row.workload, configs);
    const id = candidateId(row.instance_type, row.nodes);
    let config = configs.get(id);
    if (!config) {
      config = {
        candidate: {
          id,
          ...hardwareOfName(row.instance_type),
          nodes: row.nodes,
          vcpusPerNode: row.vcpus_per_node,
          memoryGibPerNode: row.memory_gib_per_node,
          priceUsdPerNodeHour: row.price_usd_per_node_hour,
        },
        runs: [],
        meanRuntimeS: undefined,
        meanCostUsd: undefined,
      };
      configs.set(id, config);
    }
    config.runs.push({ runtimeS: row.runtime_s, completed: row.completed });
  }
  return [...workloads].map(([name, configs]) => ({
    name,
    configs: [...configs.values()].map((config) => {
      const done = config.runs.filter((run) => run.completed);
      if (done.length === 0) return config;
      const meanRuntimeS = done.reduce((sum, run) => sum + run.runtimeS, 0) / done.length;
      const rate = config.candidate.nodes * config.candidate.priceUsdPerNodeHour;
      return { ...config, meanRuntimeS, meanCostUsd: (rate * meanRuntimeS) / 3600 };
    }),
  }));
}
