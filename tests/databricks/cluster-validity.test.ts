import { DatabricksApiError } from 'setpoint/platforms/databricks/api/api-error';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Harness,
  importJob,
  insertRecommendation,
  jobIdByName,
  startHarness,
} from './integration-harness.js';

/**
 * Issue finding: an autoscaling cluster with max_workers = min_workers was recommended, auto-applied and
 * exported. Databricks refuses it; Setpoint now never writes it and the emulator refuses it as Databricks does.
 */
describe('a cluster Databricks refuses is never written', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 31 });
  });

  afterAll(async () => {
    await h?.close();
  });

  const refusals = async () =>
    (
      (await (
        await fetch(`${h.emulator.url}/emulator/admin/refusals`, {
          headers: { authorization: `Bearer ${h.emulator.token}` },
        })
      ).json()) as { refusals: Array<{ rule: string }> }
    ).refusals;

  it('refuses to apply or export autoscale 1–1, names the rule, and leaves the job as it was', async () => {
    const jobId = await jobIdByName(h.databricks, 'Many small jobs');
    const { projectId, ref } = await importJob(h, jobId, { autoApply: true });
    if (!ref) throw new Error('no cluster ref');
    const before = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    const { applies } = h.server.services;
    const history = await applies.history(projectId);
    await insertRecommendation(
      h.server,
      projectId,
      'rec_flat_autoscale',
      { node_type_id: 'c5d.xlarge', autoscale: { min_workers: 1, max_workers: 1 } },
      'keep 1–1 × c5d.xlarge (autoscaling)',
    );
    const apply = applies.apply(projectId, 'rec_flat_autoscale', { actor: 'test', kind: 'auto-apply' });
    await expect(apply).rejects.toMatchObject({
      code: 'CLUSTER_INVALID',
      message: expect.stringContaining(
        'autoscale-bounds: Invalid autoscale: max_workers (1) must be strictly greater than min_workers (1).',
      ),
    });
    const after = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    expect(after).toEqual(before);
    expect(await applies.history(projectId)).toEqual(history);

    for (const format of ['terraform', 'json'] as const)
      await expect(
        applies.exportRecommendation(projectId, { format, recommendationId: 'rec_flat_autoscale' }),
      ).rejects.toMatchObject({
        code: 'CLUSTER_INVALID',
        message: expect.stringContaining('autoscale-bounds'),
      });
    // Setpoint never sent it: the workspace refused nothing
    expect(await refusals()).toEqual([]);
  });

  it('is refused by the emulated workspace as Databricks refuses it, were it sent', async () => {
    const jobId = await jobIdByName(h.databricks, 'IO-bound scan');
    const job = await h.databricks.getJob(jobId);
    const task = job.settings.tasks?.[0];
    if (!task?.new_cluster) throw new Error('no task cluster');
    const sent = h.databricks.updateJob(jobId, {
      tasks: [
        { ...task, new_cluster: { ...task.new_cluster, autoscale: { min_workers: 1, max_workers: 1 } } },
      ],
    });
    await expect(sent).rejects.toBeInstanceOf(DatabricksApiError);
    await expect(sent).rejects.toMatchObject({ httpStatus: 400, errorCode: 'INVALID_PARAMETER_VALUE' });
    expect((await h.databricks.getJob(jobId)).settings.tasks?.[0]?.new_cluster?.autoscale).toEqual(
      task.new_cluster.autoscale,
    );
    expect((await refusals()).map((refusal) => refusal.rule)).toEqual(['autoscale-bounds']);
  });
});
