import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSweepCsv } from './read-sweep-csv.js';
import { groupSweepRows } from './sweep-dataset.js';
import { generateSyntheticSweep, syntheticFixtureOptions, syntheticSweepCsv } from './synthetic-sweep.js';

describe('synthetic sweep', () => {
  it('regenerates the committed fixture byte for byte', () => {
    const fixture = readFileSync(
      new URL('../../../../tests/fixtures/datasets/synthetic-sweep.csv', import.meta.url),
      'utf8',
    );
    expect(syntheticSweepCsv(syntheticFixtureOptions)).toBe(fixture);
  });

  it('fails a run only on configurations with less memory than every completed one of the same type', () => {
    const workloads = groupSweepRows(
      generateSyntheticSweep({ workloads: 4, repeats: 1, seed: 5, noise: 0, timeoutS: 1e9 }),
    );
    for (const workload of workloads) {
      const byType = new Map<string, Array<{ nodes: number; runtime: number | undefined; memory: number }>>();
      for (const config of workload.configs) {
        const list = byType.get(config.candidate.instanceType) ?? [];
        list.push({
          nodes: config.candidate.nodes,
          runtime: config.meanRuntimeS,
          memory: config.candidate.nodes * config.candidate.memoryGibPerNode,
        });
        byType.set(config.candidate.instanceType, list);
      }
      for (const list of byType.values()) {
        const completed = list.filter((entry) => entry.runtime !== undefined);
        const failed = list.filter((entry) => entry.runtime === undefined);
        for (const bad of failed) for (const good of completed) expect(bad.memory).toBeLessThan(good.memory);
      }
    }
    const parsed = parseSweepCsv(
      syntheticSweepCsv({ workloads: 1, repeats: 1, seed: 1, noise: 0.04, timeoutS: 7200 }),
      'x',
    );
    expect(parsed).toHaveLength(96);
  });
});
