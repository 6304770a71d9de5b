import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Harness, jobIdByName, startHarness } from './integration-harness.js';

describe('Databricks integration against the emulator', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('checks workspace access line by line', async () => {
    const checks = await databricksIntegrationOf(h.server.services).checkAccess(
      h.workspaceId,
      'dbfs:/cluster-logs',
    );

    expect(checks.map((check) => check.check)).toEqual([
      'authenticate',
      'list jobs',
      'read runs',
      'read clusters and cluster events',
      'read DBFS',
      'data sources',
      'create notification destinations',
      'update jobs',
    ]);
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    // no SQL warehouse: event logs only, and the check says what that loses
    expect(checks.find((check) => check.check === 'data sources')?.detail).toMatch(
      /^event logs only; without system tables: costs stay estimates/,
    );
  });

  it('discovers every job with its compute and a monthly cost', async () => {
    const result = await databricksIntegrationOf(h.server.services).discover(h.workspaceId);

    expect(result.jobs.length).toBeGreaterThanOrEqual(10);
    const autoscaling = result.findings.find((finding) => finding.id === 'autoscaling');
    expect(autoscaling?.jobIds.length).toBeGreaterThan(0);
  });

  it('imports a two-cluster job as two projects and detach restores its settings exactly', async () => {
    const jobId = await jobIdByName(h.databricks, 'Two-cluster pipeline');
    const before = await h.databricks.getJob(jobId);

    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId], logDestination: 'dbfs:/setpoint-logs' },
      'test',
    );
    const during = await h.databricks.getJob(jobId);

    expect(imported?.projects.map((project) => project.clusterKey)).toEqual([
      'job_cluster:ingest_cluster',
      'job_cluster:transform_cluster',
    ]);
    expect(during.settings.webhook_notifications).toMatchObject({
      on_start: [{ id: expect.any(String) }],
      on_success: [{ id: expect.any(String) }],
    });
    expect(during.settings.tags?.['setpoint:project-id']).toBe(
      imported?.projects.map((project) => project.id).join(','),
    );
    expect(during.settings.job_clusters?.[0]?.new_cluster?.custom_tags?.['setpoint:project-id']).toBe(
      imported?.projects[0]?.id,
    );

    await databricksIntegrationOf(h.server.services).onboarding.detach(h.workspaceId, jobId, 'test');
    const after = await h.databricks.getJob(jobId);

    expect(after.settings).toEqual(before.settings);
  });

  it('refuses to import a job twice', async () => {
    const jobId = await jobIdByName(h.databricks, 'Daily aggregation');
    await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId] },
      'test',
    );

    await expect(
      databricksIntegrationOf(h.server.services).onboarding.importJobs(
        h.workspaceId,
        { jobIds: [jobId] },
        'test',
      ),
    ).rejects.toThrow(/already imported/);
  });

  it('tells an unknown workspace from a job that was never imported', async () => {
    const onboarding = databricksIntegrationOf(h.server.services).onboarding;

    await expect(onboarding.detach('wsp_missing', '1', 'test')).rejects.toMatchObject({
      code: 'WORKSPACE_NOT_FOUND',
      message: 'workspace wsp_missing does not exist',
    });
    await expect(onboarding.detach(h.workspaceId, '999999', 'test')).rejects.toMatchObject({
      code: 'JOB_NOT_IMPORTED',
    });
  });

  it('collects a run announced by the webhook and produces a recommendation', async () => {
    const jobId = await jobIdByName(h.databricks, 'Join-heavy ETL');
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId], settings: { slaMinutes: 120 } },
      'test',
    );
    const projectId = imported?.projects[0]?.id ?? '';

    const runId = await h.databricks.runNow(jobId);
    const run = await eventually(
      async () => {
        const page = await h.server.services.runs.list(projectId, { limit: 10, offset: 0 });
        return page.items.find((item) => item.externalRunId === runId && item.pipelineState === 'DONE');
      },
      'the run to be collected and processed',
      90_000,
    );
    const rec = await eventually(async () => {
      const latest = await h.server.services.recommendations.latest(projectId).catch(() => undefined);
      return latest?.state === 'SUCCESS' ? latest : undefined;
    }, 'a recommendation');

    expect(run.status).toBe('SUCCESS');
    expect(run.clusterFacts).toMatchObject({ source: 'cluster_report', nodeTypeId: 'i3.xlarge' });
    expect(rec.configuration).toHaveProperty('node_type_id');
    // a run costed now records that it has no overhead part: the start-up backfill never prices it again
    expect(run.cost?.overhead).toBeNull();
    expect(await h.server.services.pipeline.backfillRunOverhead()).toEqual({ split: 0, kept: 0 });
  });
});
