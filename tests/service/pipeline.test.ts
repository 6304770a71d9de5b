import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runRow } from '../support/run-rows.js';
import { uploadEventLog } from './support/fixture-runs.js';
import { fixtureFile } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

describe('processing pipeline', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true });
  });

  afterAll(async () => {
    await h.close();
  });

  async function upload(projectId: string, content: Buffer, externalRunId: string) {
    const response = await uploadEventLog(h, projectId, content, externalRunId);
    return response.json() as { id: string };
  }

  async function finished(projectId: string, runId: string) {
    return eventually(async () => {
      const run = (await h.request('GET', `/api/v1/projects/${projectId}/runs/${runId}`)).json();
      return ['DONE', 'FAILED'].includes(run.pipeline_state) ? run : undefined;
    });
  }

  it('re-running any step never duplicates a run or a recommendation', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'idempotent' })).json();
    const run = await upload(project.id, fixtureFile(fixturesDir, 'databricks-aws-eventlog'), 'idem-1');
    const before = await finished(project.id, run.id);
    await eventually(async () => {
      const response = await h.request('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
      return response.status === 200 ? true : undefined;
    });

    const { handlers } = h.services.pipeline;
    const context = { jobId: 'replay', attempt: 1 };
    await handlers['run.parse']({ runId: run.id }, context);
    await handlers['run.cost']({ runId: run.id }, context);
    await handlers['run.request-recommendation']({ runId: run.id }, context);
    await handlers['run.request-recommendation']({ runId: run.id }, context);
    // a job queued under the step's former name before an upgrade runs the same step
    await handlers['project.model-update']({ runId: run.id }, context);

    const after = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${run.id}`)).json();
    expect(after.cost).toEqual(before.cost);
    expect(after.pipeline_state).toBe('DONE');
    expect((await h.request('GET', `/api/v1/projects/${project.id}/runs`)).json().total).toBe(1);
    expect((await h.request('GET', `/api/v1/projects/${project.id}/recommendations`)).json().total).toBe(1);
  });

  it('parks a poison event log and shows the error on the run and in the parked-jobs list', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'poison' })).json();
    const run = await upload(
      project.id,
      Buffer.from('this is not a Spark event log\n'.repeat(20)),
      'poison-1',
    );

    const failed = await finished(project.id, run.id);

    expect(failed.pipeline_state).toBe('FAILED');
    expect(failed.error).toMatch(/^run\.parse: /);
    const parked = (await h.request('GET', '/api/v1/jobs/parked')).json();
    expect(parked.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'run.parse', payload: { runId: run.id } })]),
    );
  });

  it('re-queues the step of a run that stopped moving, once', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'stalled' })).json();
    await h.services.store.db
      .insertInto('runs')
      .values(
        runRow({
          id: 'run_stalled',
          project_id: project.id,
          external_run_id: 'stalled-1',
          pipeline_state: 'COSTING',
        }),
      )
      .execute();

    expect(await h.services.pipeline.resumeStalledRuns(60_000)).toBe(1);
    // With no profile the cost step parks the run: proof the job was queued and ran.
    const run = await finished(project.id, 'run_stalled');
    expect(run.error).toMatch(/^run\.cost: .*no profile/);
    expect(await h.services.pipeline.resumeStalledRuns(60_000)).toBe(0);
  });
});
