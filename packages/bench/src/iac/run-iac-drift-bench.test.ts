import { describe, expect, it, vi } from 'vitest';
import { runIacDriftBench } from './run-iac-drift-bench.js';

// a run per case through the whole service; the bench itself covers all 11 jobs and 3 EMR workloads
vi.setConfig({ testTimeout: 240_000 });

describe('bench iac-drift on a subset (one Job Bank job and one EMR workload in Terraform; bundles: tests/databricks/code-proposals.test.ts and the bench)', () => {
  it('proposes, merges, deploys and reads back with no drift and nothing changed outside managed attributes', async () => {
    const result = await runIacDriftBench({
      seed: 1,
      jobs: ['Daily aggregation', 'ledger-sort'],
      emr: true,
      formats: ['terraform'],
    });
    expect(result.cases.map((entry) => `${entry.platform} ${entry.format} ${entry.job}`)).toEqual([
      'databricks terraform Daily aggregation',
      'emr terraform ledger-sort',
    ]);
    for (const entry of result.cases)
      expect(entry).toMatchObject({
        problem: null,
        bytesOutsideManaged: 0,
        clusterMatchesFile: true,
        nextRunMatchesFile: true,
        diffAfterDeployEmpty: true,
        recordedApplied: true,
      });
    expect(result.cases.every((entry) => entry.changedLines > 0)).toBe(true);
    expect(result.held).toBe(2);
  });
});
