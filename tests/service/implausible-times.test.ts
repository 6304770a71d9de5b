/**
 * Issue 40, finding 10: a log dated 2150 was costed $588,118 for one run; runs at epoch 0 and at −5 ms
 * reached DONE with 0-minute runtimes and fed the model. Through the real services and workers: each
 * such run fails with an error naming the time, is not costed, and no recommendation is made from it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { twoStageLogAt } from '../support/many-stage-eventlog.js';
import { uploadEventLog } from './support/fixture-runs.js';
import { createHarness, eventually, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const year2150 = Date.UTC(2150, 0, 1);

describe('runs whose times cannot be real', () => {
  let h: Harness;
  let projectId: string;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true });
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'clocks' })).json().id;
  });

  afterAll(async () => {
    await h?.close();
  });

  async function processed(content: Buffer, externalRunId: string) {
    const response = await uploadEventLog(h, projectId, content, externalRunId);
    expect(response.statusCode).toBe(202);
    const runId = response.json().id as string;
    return eventually(async () => {
      const run = (await h.request('GET', `/api/v1/projects/${projectId}/runs/${runId}`)).json();
      return ['DONE', 'FAILED'].includes(run.pipeline_state) ? run : undefined;
    });
  }

  it('fails a run dated 2150, at epoch 0, ending before it starts, or with an executor in 2150', async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      [
        'dated-2150',
        twoStageLogAt(year2150),
        /the application start is 2150-01-01T00:00:00\.000Z, after the server's clock/,
      ],
      ['epoch-0', twoStageLogAt(0), /is 1970-01-01T00:00:00\.000Z, before 2010-01-01/],
      [
        'ends-before-start',
        twoStageLogAt(1_700_000_000_000, (event) => {
          if (event.Event === 'SparkListenerApplicationEnd') event.Timestamp = 1_700_000_000_000 - 5;
        }),
        /the application ends \(2023-11-14T22:13:19\.995Z\) before it starts/,
      ],
      [
        'executor-in-2150',
        twoStageLogAt(1_700_000_000_000, (event) => {
          if (event.Event === 'SparkListenerExecutorAdded') event.Timestamp = year2150;
        }),
        /executor 1 added is 2150-01-01/,
      ],
    ];
    for (const [name, log, message] of cases) {
      const run = await processed(log, name);
      expect(run.pipeline_state, name).toBe('FAILED');
      expect(run.error, name).toMatch(/run's times are not plausible/);
      expect(run.error, name).toMatch(message);
      expect(run.cost, name).toBeNull();
    }
    const recommendations = (await h.request('GET', `/api/v1/projects/${projectId}/recommendations`)).json();
    expect(recommendations.total).toBe(0);
  });

  it('takes a run with plausible times', async () => {
    const run = await processed(twoStageLogAt(Date.now() - 3_600_000), 'an-hour-ago');
    expect(run.pipeline_state).toBe('DONE');
    expect(run.cost.total_usd).toBeGreaterThan(0);
  });
});
