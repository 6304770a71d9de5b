import type { ApprovalResource, ProjectResource } from '@setpoint/api-contract';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { createAppliedChangeRepository } from 'setpoint/service/apply/applied-change-repository';
import { createApprovalRepository } from 'setpoint/service/apply/approval-repository';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  insertRecommendation,
  processedRun,
  startHarness,
} from './integration-harness.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 180_000 });

describe('approval mode (approve-learning) against the emulator', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let headers: Record<string, string>;

  /** A request to Setpoint's API as an API key (its actor is `api-key:<id>`). */
  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => {
    const response = await h.server.app.inject({
      method,
      url,
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  const approvalPath = (projectId: string, recommendationId: string, verb: 'approve' | 'reject') =>
    `/api/v1/projects/${projectId}/recommendations/${recommendationId}/${verb}`;
  const waitingOf = async (projectId: string) =>
    ((await api('GET', `/api/v1/approvals?project_id=${projectId}`)).body.items as ApprovalResource[])[0];
  const nodeTypeOf = async (jobId: string, ref: Parameters<typeof findClusterSpec>[1]) =>
    findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    h = await startHarness({ seed: 31 });
    const key = await h.server.services.apiKeys.create('approval-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    headers = { authorization: `Bearer ${accessToken}` };
  });

  afterAll(async () => {
    receiver?.close();
    await h?.close();
  });

  it('holds a learning run for approval, shows it, alerts approval_needed, and writes it through the apply core once approved', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (approve learning)');
    const { projectId, ref } = await importJob(h, jobId, { applyMode: 'approve-learning', slaMinutes: 240 });
    if (!ref) throw new Error('the imported project has no cluster');
    const destination = await api('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: 'approvers',
      url: receiver.url,
      signing_secret: 'whsec-0123456789abcdef',
    });
    const rule = await api('POST', '/api/v1/alerts/rules', {
      event: 'approval_needed',
      project_id: projectId,
      destination_id: destination.body.id,
    });
    expect(rule.status).toBe(201);
    const before = await nodeTypeOf(jobId, ref);

    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    const waiting = await eventually(() => waitingOf(projectId), 'a learning run waiting for approval');
    expect(waiting).toMatchObject({ project_id: projectId, state: 'waiting', decided_at: null });
    // nothing is written while it waits
    expect(await nodeTypeOf(jobId, ref)).toBe(before);
    expect((await h.server.services.applies.history(projectId)).map((change) => change.kind)).toEqual([
      'baseline',
    ]);
    // visible on the project and in the projects list
    const project = (await api('GET', `/api/v1/projects/${projectId}`)).body as ProjectResource;
    expect(project.settings).toMatchObject({ applyMode: 'approve-learning', autoApply: true });
    expect(project.awaiting_approval?.recommendation_id).toBe(waiting.recommendation_id);
    const listed = (await api('GET', '/api/v1/projects?limit=200')).body.items as ProjectResource[];
    expect(listed.find((item) => item.id === projectId)?.awaiting_approval?.recommendation_id).toBe(
      waiting.recommendation_id,
    );
    // the alert goes to the project's destination, once
    expect(await h.server.services.alerts.evaluate()).toBe(1);
    expect(receiver.received.map((body) => JSON.parse(body))).toEqual([
      expect.objectContaining({
        event: 'approval_needed',
        project_id: projectId,
        title: expect.stringMatching(
          /^Skewed join \(approve learning\): learning run \d+ waits for a person's approval before Setpoint applies it/,
        ),
        detail: expect.objectContaining({ recommendation_id: waiting.recommendation_id }),
      }),
    ]);

    const approved = await api('POST', approvalPath(projectId, waiting.recommendation_id, 'approve'));
    expect(approved.status).toBe(202);
    expect(approved.body).toMatchObject({
      state: 'approved',
      decided_by: expect.stringMatching(/^api-key:/),
    });
    const written = await eventually(async () => {
      const history = await h.server.services.applies.history(projectId);
      return history.find((change) => change.recommendationId === waiting.recommendation_id);
    }, 'the approved learning run to be written');
    expect(written).toMatchObject({
      kind: 'auto-apply',
      actor: approved.body.decided_by,
      reason: expect.stringMatching(/^learning run approved by api-key:/),
    });
    const spec = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    expect(spec?.node_type_id).toBe(written.configuration.node_type_id);
    expect(spec?.custom_tags?.['setpoint:recommendation-id']).toBe(waiting.recommendation_id);
    expect(
      ((await api('GET', `/api/v1/projects/${projectId}`)).body as ProjectResource).awaiting_approval,
    ).toBeNull();
    // asking again changes nothing
    expect((await api('POST', approvalPath(projectId, waiting.recommendation_id, 'approve'))).status).toBe(
      202,
    );
  });

  it('supersedes a learning run still waiting when the next run starts: never applied late, approve answers 409 naming why', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (approval too late)');
    const { projectId, ref } = await importJob(h, jobId, { applyMode: 'approve-learning', slaMinutes: 240 });
    if (!ref) throw new Error('the imported project has no cluster');
    const before = await nodeTypeOf(jobId, ref);
    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    const first = await eventually(() => waitingOf(projectId), 'a learning run waiting for approval');

    const next = await h.databricks.runNow(jobId);
    await processedRun(h, projectId, next);
    const superseded = await eventually(async () => {
      const items = (await api('GET', `/api/v1/approvals?state=superseded&project_id=${projectId}`)).body
        .items as ApprovalResource[];
      return items.find((item) => item.recommendation_id === first.recommendation_id);
    }, 'the first learning run to be superseded');
    expect(superseded).toMatchObject({
      decided_by: 'setpoint',
      reason: `run ${next} ran before anyone approved it; the next recommendation is made from that run`,
    });

    const late = await api('POST', approvalPath(projectId, first.recommendation_id, 'approve'));
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'APPROVAL_SUPERSEDED',
      message: expect.stringContaining(`never applied late: run ${next} ran before anyone approved it`),
      details: { state: 'superseded' },
    });
    const history = await h.server.services.applies.history(projectId);
    expect(history.some((change) => change.recommendationId === first.recommendation_id)).toBe(false);
    expect(await nodeTypeOf(jobId, ref)).toBe(before);
    const audited = await h.server.services.audit.page({ projectId, action: 'approval_superseded' }, 10, 0);
    expect(audited.rows.map((row) => row.detail.recommendation_id)).toContain(first.recommendation_id);
  });

  it('lets the auto-apply pause win: approving while paused answers 409 with the pause, and the run still waits', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (approval while paused)');
    const { projectId, ref } = await importJob(h, jobId, { applyMode: 'approve-learning' });
    if (!ref) throw new Error('the imported project has no cluster');
    await insertRecommendation(
      h.server,
      projectId,
      'rec_paused_probe',
      { node_type_id: 'c5d.2xlarge', num_workers: 3 },
      'a learning probe',
    );
    await h.server.services.applies.recommendationReady(projectId, 'rec_paused_probe');
    expect((await waitingOf(projectId))?.recommendation_id).toBe('rec_paused_probe');
    const guards = createAppliedChangeRepository(h.server.services.store.db);
    await guards.saveGuard(projectId, {
      paused: true,
      pauseReason: 'rolled back by user:ana; auto-apply waits until someone resumes it',
    });

    const refused = await api('POST', approvalPath(projectId, 'rec_paused_probe', 'approve'));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'AUTO_APPLY_PAUSED',
      message: expect.stringContaining('rolled back by user:ana'),
    });
    expect((refused.body.error as { message: string }).message).toContain(
      `setpoint recommendations resume ${projectId}`,
    );
    expect((await waitingOf(projectId))?.state).toBe('waiting');

    expect((await api('POST', `/api/v1/projects/${projectId}/resume-auto-apply`)).status).toBe(200);
    expect((await api('POST', approvalPath(projectId, 'rec_paused_probe', 'approve'))).status).toBe(202);
    await eventually(
      async () => ((await nodeTypeOf(jobId, ref)) === 'c5d.2xlarge' ? true : undefined),
      'the approved run to be written after the resume',
    );

    // approved, then paused before its queued write ran: skipped and superseded, never written late
    await insertRecommendation(
      h.server,
      projectId,
      'rec_paused_later',
      { node_type_id: 'r5d.xlarge', num_workers: 3 },
      'another learning probe',
    );
    await h.server.services.applies.recommendationReady(projectId, 'rec_paused_later');
    const approvals = createApprovalRepository(h.server.services.store.db);
    const approvedAt = Date.now();
    await approvals.decide('rec_paused_later', ['waiting'], 'approved', {
      at: approvedAt,
      by: 'user:ana',
      reason: null,
    });
    await guards.saveGuard(projectId, {
      paused: true,
      pauseReason: 'the cluster was changed outside Setpoint (num_workers)',
    });
    await h.server.services.applies.applyJob({
      projectId,
      recommendationId: 'rec_paused_later',
      actor: 'user:ana',
      kind: 'auto-apply',
      approvedAt,
    });
    expect(await nodeTypeOf(jobId, ref)).toBe('c5d.2xlarge');
    expect(await approvals.find('rec_paused_later')).toMatchObject({
      state: 'superseded',
      reason:
        'auto-apply was paused before it was written (the cluster was changed outside Setpoint (num_workers))',
    });
    const skipped = await h.server.services.audit.page({ projectId, action: 'apply_skipped' }, 10, 0);
    expect(skipped.rows.map((row) => row.detail.recommendation_id)).toContain('rec_paused_later');
  });

  it('applies optimizing changes on its own, keeps a rejected learning run out, and recommends only in manual', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (approval modes)');
    const { projectId, ref } = await importJob(h, jobId, { applyMode: 'approve-learning' });
    if (!ref) throw new Error('the imported project has no cluster');
    const { applies } = h.server.services;
    const made = Date.now();
    await insertRecommendation(
      h.server,
      projectId,
      'rec_probe',
      { node_type_id: 'r5d.xlarge', num_workers: 3 },
      'a learning probe',
      null,
      made,
    );
    await applies.recommendationReady(projectId, 'rec_probe');
    const rejected = await api('POST', approvalPath(projectId, 'rec_probe', 'reject'), {
      reason: 'month-end close tonight',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ state: 'rejected', reason: 'month-end close tonight' });
    const again = await api('POST', approvalPath(projectId, 'rec_probe', 'approve'));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'APPROVAL_REJECTED' });

    // an optimizing change (the decision says: no learning run) is not held
    await insertRecommendation(
      h.server,
      projectId,
      'rec_optimizing',
      { node_type_id: 'm5d.2xlarge', num_workers: 2 },
      'cheaper, still within the SLA',
      { action: 'change', learning: { active: false, run: 9, maxRuns: 8, missesSpent: 0, missBudget: 3 } },
      made + 1,
    );
    await applies.recommendationReady(projectId, 'rec_optimizing');
    expect(await waitingOf(projectId)).toBeUndefined();
    await eventually(
      async () => ((await nodeTypeOf(jobId, ref)) === 'm5d.2xlarge' ? true : undefined),
      'the optimizing change to be written on its own',
    );
    expect(
      (await applies.history(projectId)).map((change) => [change.kind, change.recommendationId]),
    ).toEqual([
      ['baseline', null],
      ['auto-apply', 'rec_optimizing'],
    ]);

    // the auto-apply switch of earlier versions maps onto the mode: off is manual, which only recommends
    const off = await api('PATCH', `/api/v1/projects/${projectId}`, { settings: { autoApply: false } });
    expect((off.body as ProjectResource).settings).toMatchObject({ applyMode: 'manual', autoApply: false });
    await insertRecommendation(
      h.server,
      projectId,
      'rec_manual',
      { node_type_id: 'r5d.xlarge', num_workers: 3 },
      'a learning probe',
      null,
      made + 2,
    );
    await applies.recommendationReady(projectId, 'rec_manual');
    expect(await waitingOf(projectId)).toBeUndefined();
    const on = await api('PATCH', `/api/v1/projects/${projectId}`, { settings: { autoApply: true } });
    expect((on.body as ProjectResource).settings).toMatchObject({ applyMode: 'auto', autoApply: true });
    const bad = await api('PATCH', `/api/v1/projects/${projectId}`, { settings: { applyMode: 'sometimes' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('applyMode');
  });
});
