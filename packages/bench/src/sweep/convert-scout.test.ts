import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convertScoutRuns } from './convert-scout.js';
import { parseSweepCsv } from './read-sweep-csv.js';

const scoutHeader =
  'record_id,workload,framework,datasize,vm_type,nodes,vcpus_per_node,mem_gib_per_node,completed,elapsed_time_s,input_size_bytes,price_usd_per_node_hour,cost_usd';
const shared = new URL('../../../../../shared/datasets/scout/scout_multinode_runs.csv', import.meta.url);
const fixture = new URL('../../../../tests/fixtures/datasets/scout-sweep.csv', import.meta.url);

describe('convertScoutRuns', () => {
  it('names workloads by workload, framework and input size and keeps failed runs', () => {
    const csv = convertScoutRuns(
      `${scoutHeader}\n10_c4.large_join_spark_huge_1,join,spark,huge,c4.large,10,2,3.75,False,7200.5,-1,0.1,\n`,
      'scout.csv',
    );
    expect(parseSweepCsv(csv, 'converted.csv')).toEqual([
      {
        workload: 'join-spark-huge',
        instance_type: 'c4.large',
        nodes: 10,
        vcpus_per_node: 2,
        memory_gib_per_node: 3.75,
        price_usd_per_node_hour: 0.1,
        runtime_s: 7200.5,
        completed: false,
      },
    ]);
  });

  it('rejects a file without the Scout columns', () => {
    expect(() => convertScoutRuns('a,b\n1,2\n', 'other.csv')).toThrow(/other\.csv:1: no column workload/);
  });

  it.skipIf(!existsSync(shared))('reproduces the committed fixture from the reference Scout runs', () => {
    expect(convertScoutRuns(readFileSync(shared, 'utf8'), 'scout')).toBe(readFileSync(fixture, 'utf8'));
  });

  it('the committed fixture has 1,242 runs of 18 workloads', () => {
    const rows = parseSweepCsv(readFileSync(fixture, 'utf8'), 'scout-sweep.csv');
    expect(rows).toHaveLength(1242);
    expect(new Set(rows.map((row) => row.workload)).size).toBe(18);
    expect(rows.filter((row) => row.completed)).toHaveLength(1167);
  });
});
