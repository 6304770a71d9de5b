import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { openPriceCatalog } from 'setpoint/pricing/catalog-store';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { feeUnits, usdOf } from '../support/run-costs.js';
import { eventually, type Harness, jobIdByName, processedRun, startHarness } from './integration-harness.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 180_000 });

describe('an Azure workspace, closed loop', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 41, cloud: 'azure' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('onboards an Azure job, prices its runs from the Azure catalog and applies an Azure instance type', async () => {
    const jobId = await jobIdByName(h.databricks, 'IO-bound scan');
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      // At most 8 workers: the job's 2–12 autoscaling cluster must move, so there is a change to apply.
      { jobIds: [jobId], settings: { autoApply: true, slaMinutes: 240, maxWorkers: 8 } },
      'test',
    );
    const project = imported?.projects[0];
    if (!project) throw new Error('nothing imported');
    const ref = parseClusterRefKey(project.clusterKey);

    const first = await processedRun(h, project.id, await h.databricks.runNow(jobId));
    const applied = await eventually(async () => {
      const history = await h.server.services.applies.history(project.id);
      return history.find((config) => config.kind === 'auto-apply');
    }, 'an automatic apply');
    const second = await processedRun(h, project.id, await h.databricks.runNow(jobId));
    const recommendation = await h.server.services.recommendations.latest(project.id);
    const job = await h.databricks.getJob(jobId);
    const spec = ref && findClusterSpec(job.settings, ref);

    expect(first.clusterFacts).toMatchObject({ cloud: 'azure', nodeTypeId: 'Standard_D4ds_v5' });
    // the DBU line is priced at the Azure Premium Jobs Compute rate, twice the AWS one
    const catalog = openPriceCatalog(mkdtempSync(path.join(tmpdir(), 'setpoint-catalog-')));
    const azureRate = catalog.dbuPrice('azure', 'westus2', 'premium', 'jobs').usdPerDbu;
    const awsRate = catalog.dbuPrice('aws', 'us-west-2', 'premium', 'jobs').usdPerDbu;
    expect(azureRate).not.toBeCloseTo(awsRate, 3);
    for (const run of [first, second]) {
      const cost = run.cost ?? { components: [] };
      expect(feeUnits(cost, 'dbu')).toBeGreaterThan(0);
      expect(usdOf(cost, 'platform_fee', 'dbu') / feeUnits(cost, 'dbu')).toBeCloseTo(azureRate, 1);
      expect(usdOf(cost, 'compute')).toBeGreaterThan(0);
      expect(cost.components.every((c) => c.cloud === 'azure')).toBe(true);
    }
    expect(String(applied.configuration.node_type_id)).toMatch(/^Standard_/);
    expect(spec?.node_type_id).toBe(applied.configuration.node_type_id);
    expect(recommendation.configuration?.node_type_id).toMatch(/^Standard_/);
  });
});
