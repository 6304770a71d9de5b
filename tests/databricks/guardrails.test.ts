import { applyJobHandlers } from 'setpoint/composition/apply-job-handlers';
import { defaultRetryPolicy } from 'setpoint/platforms/databricks/api/transport';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec, parseClusterRefKey } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  insertRecommendation,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

describe('guardrails and the webhook receiver', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 23 });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('reverts when a run fails (OOM) on a newly applied configuration, once, though the first write’s answer is lost', async () => {
    const jobId = await jobIdByName(h.databricks, 'Spill-heavy sort');
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId] },
      'test',
    );
    const projectId = imported?.projects[0]?.id ?? '';
    const ref = parseClusterRefKey(imported?.projects[0]?.clusterKey ?? '');
    await insertRecommendation(
      h.server,
      projectId,
      'rec_too_small',
      { node_type_id: 'c5.xlarge', num_workers: 8 },
      'a compute-optimized cluster with less memory',
    );
    await h.server.services.applies.apply(projectId, 'rec_too_small', {
      actor: 'test',
      kind: 'apply',
    });
    const applied = await h.databricks.getJob(jobId);
    expect(ref && findClusterSpec(applied.settings, ref)?.node_type_id).toBe('c5.xlarge');

    // The revert's jobs/update is written and its answer lost on every try of the client: the first revert
    // attempt fails after the job changed. The queued revert is tried again and records what was written.
    const lostAnswer = h.emulator.context.faults.add({
      kind: 'http',
      match: 'POST /api/2.*/jobs/update',
      status: 429,
      retryAfterSeconds: 0,
      afterHandler: true,
      count: defaultRetryPolicy.maxAttempts,
    });
    await h.databricks.runNow(jobId);
    const revert = await eventually(
      async () => {
        const history = await h.server.services.applies.history(projectId);
        return history.find((config) => config.kind === 'revert');
      },
      'the revert',
      90_000,
    );
    const after = await h.databricks.getJob(jobId);

    // every try of the first attempt failed; the revert is recorded once, by a later attempt, without a
    // second write and without taking the first write for an edit made outside Setpoint
    expect(lostAnswer.applied).toBe(defaultRetryPolicy.maxAttempts);
    expect(lostAnswer.seen).toBe(defaultRetryPolicy.maxAttempts);
    h.emulator.context.faults.remove(lostAnswer.id);
    const kinds = (await h.server.services.applies.history(projectId)).map((config) => config.kind);
    expect(kinds).toEqual(['baseline', 'apply', 'revert']);
    expect(revert.reason).toMatch(/^reverted: run \d+ failed on the new configuration/);
    expect(ref && findClusterSpec(after.settings, ref)?.node_type_id).toBe('m5.xlarge');

    // The revert is in the audit trail: by Setpoint, from the applied configuration back to the one before.
    const history = await h.server.services.applies.history(projectId);
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

    // One rule on every platform: a revert pauses auto-apply, with its reason, until a person resumes it.
    expect(await h.server.services.applies.guard(projectId)).toMatchObject({
      paused: true,
      pauseReason: revert.reason,
    });
    const paused = await h.server.services.audit.page({ projectId, action: 'auto_apply_paused' }, 10, 0);
    expect(paused.rows).toHaveLength(1);
    expect(paused.rows[0]).toMatchObject({
      actor: 'setpoint',
      detail: { platform: 'databricks', cause: 'revert', reason: revert.reason },
    });
    // paused: an automatic apply is refused, with the revert's reason
    await expect(
      h.server.services.applies.apply(projectId, 'rec_too_small', {
        actor: 'setpoint:auto-apply',
        kind: 'auto-apply',
      }),
    ).rejects.toThrow(/auto-apply is paused .*reverted: run \d+ failed/);
    await h.server.services.applies.resumeAutoApply(projectId, 'ada');
    expect((await h.server.services.applies.guard(projectId)).paused).toBe(false);
    const resumed = await h.server.services.audit.page({ projectId, action: 'auto_apply_resumed' }, 10, 0);
    expect(resumed.rows[0]).toMatchObject({ actor: 'ada', detail: { platform: 'databricks' } });
  });

  it('leaves a failed auto-applied learning run to the next recommendation: no revert, no pause, audited', async () => {
    const jobId = await copyJob(h, 'Spill-heavy sort', 'Spill-heavy sort (learning)');
    const { projectId, ref } = await importJob(h, jobId, { autoApply: true });
    if (!ref) throw new Error('the imported project has no cluster');
    // the second learning run of the cautious phase, which may knowingly risk the SLA
    await insertRecommendation(
      h.server,
      projectId,
      'rec_learning_small',
      { node_type_id: 'c5.xlarge', num_workers: 8 },
      'learning run 2 of 3: a compute-optimized cluster with less memory',
      { learning: { active: true, run: 2, maxRuns: 3, missBudget: null, missesSpent: 0 } },
    );
    await h.server.services.applies.apply(projectId, 'rec_learning_small', {
      actor: 'setpoint:auto-apply',
      kind: 'auto-apply',
    });
    const runId = await h.databricks.runNow(jobId);
    const missed = await eventually(
      async () =>
        (await h.server.services.audit.page({ projectId, action: 'learning_run_missed' }, 10, 0)).rows[0],
      'the learning run miss',
      90_000,
    );
    expect(missed).toMatchObject({
      actor: 'setpoint',
      detail: {
        platform: 'databricks',
        recommendation_id: 'rec_learning_small',
        reason: expect.stringMatching(/^run \d+ failed on the new configuration .*a learning run/),
      },
    });
    // the next recommendation, made from the failed run, moves the job off it and is applied automatically
    const next = await eventually(
      async () => {
        const history = await h.server.services.applies.history(projectId);
        return history.find(
          (config) => config.kind === 'auto-apply' && config.recommendationId !== 'rec_learning_small',
        );
      },
      'the next recommendation applied',
      90_000,
    );
    const after = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    expect(after?.node_type_id).toBe(next.configuration.node_type_id);
    expect(after?.node_type_id === 'c5.xlarge' && after.num_workers === 8).toBe(false);
    const history = await h.server.services.applies.history(projectId);
    expect(history.map((config) => config.kind)).toEqual(['baseline', 'auto-apply', 'auto-apply']);
    expect(await h.server.services.applies.guard(projectId)).toMatchObject({ paused: false });
    const paused = await h.server.services.audit.page({ projectId, action: 'auto_apply_paused' }, 10, 0);
    expect(paused.rows).toHaveLength(0);
    expect((await processedRun(h, projectId, runId)).status).toMatch(/FAILED/);
  }, 240_000);

  it('parks a queued revert that would overwrite an edit made outside Setpoint since', async () => {
    const integration = databricksIntegrationOf(h.server.services);
    const jobId = await jobIdByName(h.databricks, 'Skewed join');
    const [imported] = await integration.onboarding.importJobs(h.workspaceId, { jobIds: [jobId] }, 'test');
    const projectId = imported?.projects[0]?.id ?? '';
    const ref = parseClusterRefKey(imported?.projects[0]?.clusterKey ?? '');
    if (!ref) throw new Error('the imported project has no cluster');
    await insertRecommendation(
      h.server,
      projectId,
      'rec_skewed_small',
      { node_type_id: 'c5d.xlarge', num_workers: 3 },
      'a smaller cluster',
    );
    const { change: applied } = await h.server.services.applies.apply(projectId, 'rec_skewed_small', {
      actor: 'test',
      kind: 'apply',
    });
    if (!applied) throw new Error('nothing was applied');
    // a person edits the job (Terraform, the UI) after the revert was queued and before it ran
    const job = await h.databricks.getJob(jobId);
    const edited = findClusterSpec(job.settings, ref);
    if (!edited) throw new Error('the job has no cluster');
    edited.node_type_id = 'm5.2xlarge';
    await h.databricks.updateJob(jobId, job.settings);

    const revert = applyJobHandlers(h.server.services.applies)['project.revert'];
    if (!revert) throw new Error('no project.revert handler');
    const intent = {
      projectId,
      configId: applied.id,
      reason: 'reverted: run 1 failed on the new configuration',
    };
    const context = { attempt: 1, jobId: 'job_test' };
    await expect(revert(intent, context)).rejects.toMatchObject({
      name: 'PermanentJobError',
      message: expect.stringMatching(
        /changed outside Setpoint \(.*node_type_id.*\); the revert is not written/,
      ),
    });
    // the person's edit stays, recorded as an external change; no revert is recorded
    const after = await h.databricks.getJob(jobId);
    expect(findClusterSpec(after.settings, ref)?.node_type_id).toBe('m5.2xlarge');
    const history = await h.server.services.applies.history(projectId);
    expect(history.map((config) => [config.kind, config.actor])).toEqual([
      ['baseline', expect.any(String)],
      ['apply', 'test'],
      ['baseline', 'external'],
    ]);
    // tried again (by hand, from the parked list): the change is no longer in place, so nothing is written
    await revert(intent, context);
    expect((await h.server.services.applies.history(projectId)).length).toBe(3);
  });

  it('runs an apply queued under its platform’s job kind before the upgrade, with the one apply core', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (queued before the upgrade)');
    const { projectId, ref } = await importJob(h, jobId);
    if (!ref) throw new Error('the imported project has no cluster');
    await insertRecommendation(
      h.server,
      projectId,
      'rec_queued_before',
      // with an instance store: an EBS-only type without volumes would fail to launch (ebs-only-node-storage)
      { node_type_id: 'c5d.2xlarge', num_workers: 3 },
      'queued by the release before',
    );
    await h.server.services.queue.enqueue('databricks.apply', {
      projectId,
      recommendationId: 'rec_queued_before',
      actor: 'ana',
      kind: 'apply',
    });
    const applied = await eventually(
      async () =>
        (await h.server.services.applies.history(projectId)).find((change) => change.kind === 'apply'),
      'the apply queued before the upgrade',
    );
    expect(applied).toMatchObject({
      platform: 'databricks',
      actor: 'ana',
      recommendationId: 'rec_queued_before',
    });
    expect(findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id).toBe(
      'c5d.2xlarge',
    );
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
