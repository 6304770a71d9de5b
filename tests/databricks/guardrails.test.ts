import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Harness, jobIdByName, startHarness } from './integration-harness.js';

describe('guardrails and the webhook receiver', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 23 });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('reverts at once when a run fails (OOM) on a newly applied configuration', async () => {
    const jobId = await jobIdByName(h.databricks, 'Spill-heavy sort');
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId] },
      'test',
    );
    const projectId = imported?.projects[0]?.id ?? '';
    const ref = parseClusterRefKey(imported?.projects[0]?.clusterKey ?? '');
    const now = Date.now();
    await h.server.services.store.db
      .insertInto('recommendations')
      .values({
        id: 'rec_too_small',
        project_id: projectId,
        idempotency_key: null,
        state: 'SUCCESS',
        phase: 'LEARNING',
        configuration: JSON.stringify({ node_type_id: 'c5.xlarge', num_workers: 8 }),
        prediction: null,
        explanation: 'a compute-optimized cluster with less memory',
        based_on_run_id: null,
        error: null,
        requested_by: 'test',
        apply_requested_at: null,
        apply_requested_by: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await databricksIntegrationOf(h.server.services).applier.apply(projectId, 'rec_too_small', {
      actor: 'test',
      kind: 'apply',
    });
    const applied = await h.databricks.getJob(jobId);
    expect(ref && findClusterSpec(applied.settings, ref)?.node_type_id).toBe('c5.xlarge');

    await h.databricks.runNow(jobId);
    const revert = await eventually(
      async () => {
        const history = await databricksIntegrationOf(h.server.services).applier.history(projectId);
        return history.find((config) => config.kind === 'revert');
      },
      'the revert',
      90_000,
    );
    const after = await h.databricks.getJob(jobId);

    expect(revert.reason).toMatch(/^reverted: run \d+ failed on the new configuration/);
    expect(ref && findClusterSpec(after.settings, ref)?.node_type_id).toBe('m5.xlarge');

    // The revert is in the audit trail: by Setpoint, from the applied configuration back to the one before.
    const history = await databricksIntegrationOf(h.server.services).applier.history(projectId);
    const trail = await h.server.services.audit.page({ projectId, action: 'revert' }, 10, 0);
    expect(trail.rows).toHaveLength(1);
    expect(trail.rows[0]).toMatchObject({
      action: 'revert',
      actor: revert.actor,
      detail: {
        platform: 'databricks',
        from_config: history.find((config) => config.kind === 'apply')?.id,
        to_config: history.find((config) => config.kind === 'baseline')?.id,
        changes: expect.arrayContaining([{ what: 'node_type_id', from: 'c5.xlarge', to: 'm5.xlarge' }]),
        summary: expect.stringContaining('node_type_id: c5.xlarge → m5.xlarge'),
        reason: revert.reason,
      },
    });
  });

  it('rejects webhook calls without the workspace’s Basic credentials', async () => {
    const body = { event_type: 'jobs.on_success', workspace_id: 1, run: { run_id: 1 }, job: { job_id: 1 } };
    const post = (authorization?: string) =>
      fetch(`${h.server.url}/api/v1/webhooks/databricks/${h.workspaceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(body),
      });

    const missing = await post();
    const wrong = await post(`Basic ${Buffer.from('setpoint:guess').toString('base64')}`);

    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'invalid webhook credentials' },
    });
  });

  it('accepts a valid delivery once and marks repeats as duplicates', async () => {
    const { webhookCredentials } = await h.server.services.workspaces.credentials(h.workspaceId);
    const authorization = `Basic ${Buffer.from(`${webhookCredentials?.username}:${webhookCredentials?.password}`).toString('base64')}`;
    const post = () =>
      fetch(`${h.server.url}/api/v1/webhooks/databricks/${h.workspaceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({
          event_type: 'jobs.on_start',
          workspace_id: '42',
          run: { run_id: '991' },
          job: { job_id: 3, name: 'x' },
        }),
      });

    const first = await post();
    const second = await post();

    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ accepted: true, duplicate: false });
    expect(await second.json()).toEqual({ accepted: true, duplicate: true });
  });
});
