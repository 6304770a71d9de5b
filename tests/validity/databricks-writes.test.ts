import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceFacts } from '@setpoint/databricks-emulator/server/cluster-validity';
import { checkClusterSpec, type DatabricksWorkspaceFacts } from '@setpoint/validity/databricks';
import fc from 'fast-check';
import type { NewClusterSpec } from 'setpoint/platforms/databricks/api/schema';
import { assertClusterAccepted } from 'setpoint/platforms/databricks/validity/accepted-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestEmulator, testEmulator } from '../emulator/support.js';
import { pythonForMoto } from '../support/moto-server.js';
import { describeFull } from '../support/tiers.js';
import { databricksCluster } from './databricks-arbitraries.js';
import { databricksWrites } from './databricks-writes.js';

const written = databricksWrites();

describe('what Setpoint writes passes the validity contract and the emulator', () => {
  const emulators = new Map<'aws' | 'azure', TestEmulator>();

  beforeAll(async () => {
    emulators.set('aws', await testEmulator({ preloadJobs: false, cloud: 'aws' }));
    emulators.set('azure', await testEmulator({ preloadJobs: false, cloud: 'azure' }));
  });

  afterAll(async () => {
    for (const emulator of emulators.values()) await emulator.emulator.close();
  });

  it('every candidate the Databricks space keeps, written into its job: no rule broken but what the job runs with already, jobs/create takes it', async () => {
    expect(written.length).toBeGreaterThan(300);
    expect(new Set(written.map((item) => item.cloud))).toEqual(new Set(['aws', 'azure']));
    // candidates on node types without instance store carry the EBS volumes Setpoint sizes for them
    const withVolumes = written.filter(
      (item) =>
        Number((item.cluster.aws_attributes as { ebs_volume_count?: number } | undefined)?.ebs_volume_count) >
        0,
    );
    expect(withVolumes.length).toBeGreaterThan(0);
    for (const item of written) {
      const api = emulators.get(item.cloud) as TestEmulator;
      const facts: DatabricksWorkspaceFacts = workspaceFacts(api.emulator.context);
      const refused = checkClusterSpec(item.cluster, facts).filter(
        (violation) => violation.refusedAt === 'request',
      );
      expect(refused, item.id).toEqual([]);
      // a problem met only at launch is one the shipped cluster has too (m5 without instance store): it runs
      expect(() =>
        assertClusterAccepted(item.cluster as NewClusterSpec, facts, item.id, item.running as NewClusterSpec),
      ).not.toThrow();
      const response = await api.call('POST', '/api/2.2/jobs/create', item.job);
      expect(response.status, `${item.id}: ${response.text}`).toBe(200);
    }
  });
});

interface OracleAnswer {
  databricks: Array<{
    id: string;
    sdk: unknown;
    bundles: unknown;
    sdk_job?: unknown;
  }>;
}

/** Runs the official types over a corpus (`databricks_types_oracle.py` with the PyPI venv's Python). */
function oracle(corpus: unknown): OracleAnswer {
  const dir = mkdtempSync(path.join(tmpdir(), 'setpoint-oracle-'));
  const file = path.join(dir, 'corpus.json');
  writeFileSync(file, JSON.stringify(corpus));
  const script = path.join(import.meta.dirname, 'databricks_types_oracle.py');
  const run = spawnSync(pythonForMoto, [script, file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the oracle failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleAnswer;
}

describeFull(
  'code Setpoint did not write accepts what Setpoint writes, and refuses where the contract does',
  'databricks-sdk and databricks-bundles from PyPI (SETPOINT_PYTHON)',
  () => {
    it('databricks-sdk ClusterSpec and JobSettings, and databricks-bundles ClusterSpec, give every written cluster back', () => {
      const answer = oracle({ databricks: written.map(({ id, cluster, job }) => ({ id, cluster, job })) });
      expect(answer.databricks).toHaveLength(written.length);
      for (const result of answer.databricks) {
        expect(result.sdk, result.id).toBeNull();
        expect(result.sdk_job, result.id).toBeNull();
        expect(result.bundles, result.id).toBeNull();
      }
    });

    it('on random clusters: a contract-valid cluster round-trips through both official types; one they cannot read, the contract refuses', () => {
      const aws: DatabricksWorkspaceFacts = { cloud: 'aws', nodeTypes: null };
      const clusters = fc.sample(databricksCluster, { numRuns: 300, seed: 38 });
      const answer = oracle({
        databricks: clusters.map((cluster, index) => ({ id: String(index), cluster })),
      });
      let refusedByTypes = 0;
      answer.databricks.forEach((result, index) => {
        const cluster = clusters[index] as Record<string, unknown>;
        const valid = checkClusterSpec(cluster, aws).length === 0;
        if (valid) {
          expect(result.sdk, JSON.stringify(cluster)).toBeNull();
          expect(result.bundles, JSON.stringify(cluster)).toBeNull();
        }
        if (result.sdk !== null || result.bundles !== null) {
          refusedByTypes += 1;
          expect(valid, `${JSON.stringify(cluster)}: ${JSON.stringify(result)}`).toBe(false);
        }
      });
      // the generator reaches values the official types cannot read (unknown enum values)
      expect(refusedByTypes).toBeGreaterThan(20);
    });
  },
);
