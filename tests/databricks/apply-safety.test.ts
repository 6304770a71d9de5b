import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { createApplyIntentRepository } from 'setpoint/service/apply/apply-intent-repository';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  insertRecommendation,
  startHarness,
} from './integration-harness.js';

/** Every queued apply has run: none waits or runs any more. */
const drained = async (h: Harness) =>
  (await h.server.services.queue.depth()).some((entry) => entry.kind === 'project.apply') ? undefined : true;

describe('applies that land safely: one at a time per project, superseded ones skipped, lost answers recognised', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 29, env: { SETPOINT_WORKER_CONCURRENCY: '2' } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('writes only the newest of three queued automatic applies and records why the others were not', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (three queued applies)');
    const { projectId, ref } = await importJob(h, jobId, { autoApply: true });
    if (!ref) throw new Error('the imported project has no cluster');
    const made = Date.now();
    const nodeTypes = ['c5d.2xlarge', 'r5d.xlarge', 'm5d.2xlarge'];
    for (const [index, nodeType] of nodeTypes.entries())
      await insertRecommendation(
        h.server,
        projectId,
        `rec_queued_${index + 1}`,
        { node_type_id: nodeType, num_workers: 3 },
        `learning run ${index + 1}`,
        null,
        made + index,
      );
    for (const index of [1, 2, 3])
      await h.server.services.queue.enqueue('project.apply', {
        projectId,
        recommendationId: `rec_queued_${index}`,
        actor: 'setpoint:auto-apply',
        kind: 'auto-apply',
      });
    await eventually(() => drained(h), 'the three applies to run');

    const history = await h.server.services.applies.history(projectId);
    expect(history.map((change) => [change.kind, change.recommendationId])).toEqual([
      ['baseline', null],
      ['auto-apply', 'rec_queued_3'],
    ]);
    expect(findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id).toBe(
      'm5d.2xlarge',
    );
    expect((await h.server.services.applies.guard(projectId)).paused).toBe(false);
    const skipped = await h.server.services.audit.page({ projectId, action: 'apply_skipped' }, 10, 0);
    expect(
      skipped.rows
        .map((row) => [row.detail.recommendation_id, row.detail.reason])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['rec_queued_1', 'superseded by recommendation rec_queued_3, made after it'],
      ['rec_queued_2', 'superseded by recommendation rec_queued_3, made after it'],
    ]);
    const external = await h.server.services.audit.page({ projectId, action: 'external_change' }, 10, 0);
    expect(external.rows).toHaveLength(0);
  });

  it("records a write whose answer was lost as Setpoint's own, once, and takes nothing for an outside edit", async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (answer lost)');
    const { projectId, ref } = await importJob(h, jobId);
    if (!ref) throw new Error('the imported project has no cluster');
    await insertRecommendation(
      h.server,
      projectId,
      'rec_answer_lost',
      { node_type_id: 'c5d.2xlarge', num_workers: 3 },
      'fewer, faster nodes',
    );
    // every try changes the job and is answered as throttled: the client gives up, the write has landed
    const lost = h.emulator.context.faults.add({
      kind: 'http',
      match: 'POST /api/2.*/jobs/update',
      status: 429,
      retryAfterSeconds: 0,
      afterHandler: true,
      count: 20,
    });
    try {
      const result = await h.server.services.applies.apply(projectId, 'rec_answer_lost', {
        actor: 'user:test',
        kind: 'apply',
      });
      expect(lost.applied).toBeGreaterThan(0);
      expect(result.change).toMatchObject({ kind: 'apply', recommendationId: 'rec_answer_lost' });
    } finally {
      h.emulator.context.faults.remove(lost.id);
    }
    const history = await h.server.services.applies.history(projectId);
    expect(history.map((change) => [change.kind, change.recommendationId])).toEqual([
      ['baseline', null],
      ['apply', 'rec_answer_lost'],
    ]);
    expect(findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)).toMatchObject({
      node_type_id: 'c5d.2xlarge',
      custom_tags: expect.objectContaining({ 'setpoint:recommendation-id': 'rec_answer_lost' }),
    });
    const intents = await createApplyIntentRepository(h.server.services.store.db).ofProject(projectId);
    expect(intents.map((intent) => [intent.state, intent.changeId])).toEqual([['written', history[1]?.id]]);
    // the next look at the cluster finds it as recorded: nothing changed outside Setpoint
    const external = await h.server.services.audit.page({ projectId, action: 'external_change' }, 10, 0);
    expect(external.rows).toHaveLength(0);
    expect((await h.server.services.applies.guard(projectId)).paused).toBe(false);
  });

  it('rolls back to the newest configuration whose runs met the SLA, pauses auto-apply and says so in the API', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (rollback lands safely)');
    const { projectId, ref } = await importJob(h, jobId, { slaMinutes: 30 });
    if (!ref) throw new Error('the imported project has no cluster');
    const { applies } = h.server.services;
    const nodeTypeNow = async () =>
      findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id;
    const applyAndRun = async (id: string, nodeType: string, runtimeMinutes: number) => {
      await insertRecommendation(h.server, projectId, id, { node_type_id: nodeType, num_workers: 3 }, id);
      await applies.apply(projectId, id, { actor: 'user:test', kind: 'apply' });
      await applies.runFinished(projectId, {
        label: `run on ${nodeType}`,
        runtimeMinutes,
        failed: false,
        startedAt: Date.now(),
      });
    };
    // met the SLA, then two that missed it (not badly enough for the SLA guard to revert them)
    await applyAndRun('rec_met', 'c5d.2xlarge', 25);
    await applyAndRun('rec_slow', 'm5d.2xlarge', 40);
    await applyAndRun('rec_slower', 'r5d.xlarge', 41);
    expect(await nodeTypeNow()).toBe('r5d.xlarge');

    const key = await h.server.services.apiKeys.create('rollback-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const headers = { authorization: `Bearer ${accessToken}` };
    const rolled = await h.server.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/rollback`,
      headers,
      payload: {},
    });
    expect(rolled.statusCode).toBe(200);
    expect(rolled.json()).toMatchObject({
      config: { kind: 'rollback', recommendation_id: 'rec_met', cluster: { node_type_id: 'c5d.2xlarge' } },
      auto_apply_paused: true,
      pause_reason: expect.stringContaining('rolled back by api-key:'),
    });
    expect(await nodeTypeNow()).toBe('c5d.2xlarge');

    const history = (
      await h.server.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${projectId}/applied-configs`,
        headers,
      })
    ).json();
    expect(
      history.items.map(
        (item: { kind: string; recommendation_id: string | null; met_sla_at: number | null }) => [
          item.kind,
          item.recommendation_id,
          item.met_sla_at !== null,
        ],
      ),
    ).toEqual([
      ['baseline', null, false],
      ['apply', 'rec_met', true],
      ['apply', 'rec_slow', false],
      ['apply', 'rec_slower', false],
      ['rollback', 'rec_met', false],
    ]);
    expect(history).toMatchObject({
      auto_apply_paused: true,
      pause_reason: expect.stringContaining('rolled back'),
    });
    // the history names the target by when it was applied, to the minute in UTC, not as an ISO timestamp
    expect(history.items.at(-1).reason).toMatch(
      /^to the configuration applied \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/,
    );
    const paused = await h.server.services.audit.page({ projectId, action: 'auto_apply_paused' }, 10, 0);
    expect(paused.rows.map((row) => row.detail.cause)).toEqual(['rollback']);
  });

  it('skips an automatic apply made stale by a pause, with the pause as its reason, and writes nothing', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join (paused before its apply ran)');
    const { projectId, ref } = await importJob(h, jobId, { autoApply: true });
    if (!ref) throw new Error('the imported project has no cluster');
    const before = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id;
    await insertRecommendation(
      h.server,
      projectId,
      'rec_after_pause',
      { node_type_id: 'c5d.2xlarge' },
      'smaller',
    );
    // a revert paused auto-apply after the apply was queued and before it ran
    await h.server.services.store.db
      .insertInto('apply_guards')
      .values({
        project_id: projectId,
        auto_apply_paused: 1,
        pause_reason: 'reverted: run 7 failed on the new configuration',
        last_good_change_id: null,
        updated_at: Date.now(),
      })
      .execute();
    await h.server.services.queue.enqueue('project.apply', {
      projectId,
      recommendationId: 'rec_after_pause',
      actor: 'setpoint:auto-apply',
      kind: 'auto-apply',
    });
    await eventually(() => drained(h), 'the apply to run');

    expect((await h.server.services.applies.history(projectId)).map((change) => change.kind)).toEqual([
      'baseline',
    ]);
    expect(findClusterSpec((await h.databricks.getJob(jobId)).settings, ref)?.node_type_id).toBe(before);
    const skipped = await h.server.services.audit.page({ projectId, action: 'apply_skipped' }, 10, 0);
    expect(skipped.rows.map((row) => row.detail)).toEqual([
      expect.objectContaining({
        recommendation_id: 'rec_after_pause',
        reason: 'auto-apply is paused: reverted: run 7 failed on the new configuration',
      }),
    ]);
  });
});
