import { defaultServicePrincipals } from '@setpoint/databricks-emulator/server/oauth';
import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { createSystemTablesReader } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

const principal = defaultServicePrincipals.find((candidate) => candidate.kind === 'databricks')!;
const hourMs = 3_600_000;

describe('agentless: a workspace without log delivery, read through system tables with OAuth M2M', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      seed: 21,
      // every hourly record is first published 5–25 % high, then retracted and restated two days later
      // (long enough that processing the run never lets the simulated clock run past it)
      emulator: {
        systemTables: { billingLagMs: hourMs, restatementRate: 1, restatementDelayMs: 48 * hourMs },
      },
      auth: () => ({
        auth_type: 'oauth-m2m',
        client_id: principal.clientId,
        client_secret: principal.clientSecret,
      }),
    });
  });
  afterAll(async () => h?.close());

  it('the access check names the sign-in and says the workspace is agentless, and what that loses', async () => {
    const integration = databricksIntegrationOf(h.server.services);
    const checks = await integration.checkAccess(h.workspaceId, undefined, defaultWarehouseId);
    const line = (name: string) => checks.find((check) => check.check === name);
    expect(line('authenticate')?.detail).toMatch(/OAuth M2M/);
    expect(line('read system tables')?.ok).toBe(true);
    expect(line('data sources')?.detail).toMatch(/system tables/);
    expect(line('data sources')?.detail).toMatch(/no stage, task, spill/);
  });

  it('collects a run without an event log: costed, profiled from the node timeline, recommended; billed later', async () => {
    const integration = databricksIntegrationOf(h.server.services);
    // a job whose clusters deliver no logs, as most jobs in a workspace without an init script or log policy
    const shipped = await h.databricks.getJob(await jobIdByName(h.databricks, 'Daily aggregation'));
    const tasks = (shipped.settings.tasks ?? []).map((task) => {
      if (!task.new_cluster) return task;
      const { cluster_log_conf: _dropped, ...cluster } = task.new_cluster;
      return { ...task, new_cluster: cluster };
    });
    const jobClusters = (shipped.settings.job_clusters ?? []).map((entry) => {
      const { cluster_log_conf: _dropped, ...cluster } = entry.new_cluster ?? {};
      return { ...entry, new_cluster: cluster };
    });
    await h.databricks.resetJob(shipped.job_id, { ...shipped.settings, tasks, job_clusters: jobClusters });
    const { jobId, projectId, ref } = await importJob(h, shipped.job_id, { slaMinutes: 240 });
    const job = await h.databricks.getJob(jobId);
    expect(ref && findClusterSpec(job.settings, ref)?.cluster_log_conf).toBeUndefined();

    const databricksRunId = await h.databricks.runNow(jobId);
    const processed = await processedRun(h, projectId, databricksRunId);
    // from here on the simulated clock moves only when the test advances it
    const clock = (body: { speed?: number; advance_ms?: number }) =>
      fetch(`${h.emulator.url}/emulator/admin/clock`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => expect(response.status).toBe(200));
    await clock({ speed: 0 });
    expect(processed.pipelineState).toBe('DONE');
    const detail = await h.server.services.runs.get(projectId, processed.id);
    expect(detail.cost?.totalUsd).toBeGreaterThan(0);
    expect(detail.profileSummary).not.toBeNull();
    const recommendation = await eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 5, offset: 0 });
      return page.items.find((item) => item.basedOnRunId === processed.id && item.state !== 'PENDING');
    }, 'a recommendation from the agentless run');
    expect(recommendation.state, recommendation.error ?? '').toBe('SUCCESS');
    expect(recommendation.configuration).not.toBeNull();

    // the estimate is waiting for the bill
    const [pending] = await integration.store.billingOfRuns([processed.id]);
    expect(pending?.estimated_dbus).toBeGreaterThan(0);
    expect(pending?.billed_dbus).toBeNull();

    const { transport } = await integration.connect(h.workspaceId);
    const statements = createStatementClient(transport, { warehouseId: defaultWarehouseId });
    const reader = createSystemTablesReader(statements);
    const reconcile = () =>
      reconcileBilling(
        { store: integration.store, reader, reviseCost: integration.reviseRunCost },
        h.workspaceId,
        {
          waitingIntervalMs: 0,
          billedIntervalMs: 0,
        },
      );
    // hour by hour the records arrive (1 h lag), each first too high, then retracted and restated two days later
    const seen = new Set<number>();
    const first = await eventually(async () => {
      await reconcile();
      const [row] = await integration.store.billingOfRuns([processed.id]);
      if (row?.billed_dbus) seen.add(row.billed_dbus);
      if (!row?.billed_dbus) await clock({ advance_ms: hourMs / 4 });
      return row?.billed_dbus ? row : undefined;
    }, 'the first billing records');
    expect(first.restated).toBe(0);
    expect(first.billed_at).not.toBeNull();
    const restated = await eventually(async () => {
      await clock({ advance_ms: 4 * hourMs });
      await reconcile();
      const [row] = await integration.store.billingOfRuns([processed.id]);
      if (row?.billed_dbus) seen.add(row.billed_dbus);
      // every hourly record is restated (rate 1), each hour on its own schedule: the bill is final once
      // every original has its retraction and its restatement
      const bill = await reader.billing(databricksRunId, row?.cluster_id ?? '');
      const originals = bill.records - bill.corrections;
      return row?.restated && bill.corrections === 2 * originals && row.billing_rows === bill.records
        ? row
        : undefined;
    }, 'the restatement of every hour');
    expect(seen.size).toBeGreaterThan(1);
    expect(restated.billed_at).toBe(first.billed_at);
    // the run's cost now carries the DBUs as billed, so spend, savings and ROI use the bill
    const revised = await h.server.services.runs.get(projectId, processed.id);
    const billed = revised.cost?.components.filter((c) => c.fee === 'dbu') ?? [];
    expect(billed.length).toBeGreaterThan(0);
    expect(billed.every((c) => c.estimated_usd !== null)).toBe(true);
    const billedUsd = billed.reduce((sum, c) => sum + c.usd, 0);
    const estimateUsd = billed.reduce((sum, c) => sum + (c.estimated_usd ?? 0), 0);
    expect(billedUsd / estimateUsd).toBeCloseTo(restated.billed_dbu_usd! / restated.estimated_dbu_usd, 9);
    expect(revised.cost!.totalUsd - detail.cost!.totalUsd).toBeCloseTo(billedUsd - estimateUsd, 9);
    // the restated bill is the simulator's own DBUs; the estimate from the node timeline is close to it
    const truth = await fetch(`${h.emulator.url}/emulator/admin/runs/${databricksRunId}`, {
      headers: { authorization: `Bearer ${h.emulator.token}` },
    }).then((response) => response.json() as Promise<{ clusters: Array<{ cost: { dbus: number } }> }>);
    const simulated = truth.clusters.reduce((sum, cluster) => sum + cluster.cost.dbus, 0);
    expect(restated.billed_dbus!).toBeCloseTo(simulated, 6);
    const error = Math.abs(restated.estimated_dbu_usd - restated.billed_dbu_usd!) / restated.billed_dbu_usd!;
    // the estimate places each node within its first and last minute of the node timeline; the bill has its exact span
    expect(error).toBeGreaterThan(0);
    expect(error).toBeLessThan(0.15);
    // one run through the whole pipeline, then two simulated days of billing: more than the default bound
    // on a loaded machine, each wait still on a condition
  }, 180_000);
});
