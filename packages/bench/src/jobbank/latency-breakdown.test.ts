import type { JobAttempt } from 'setpoint/queue/job-queue';
import { describe, expect, it } from 'vitest';
import { latencyBreakdown } from './latency-breakdown.js';

const attempt = (
  kind: JobAttempt['kind'],
  payload: Record<string, string>,
  readyAt: number,
  startedAt: number,
  finishedAt: number,
): JobAttempt => ({ kind, payload, outcome: 'done', readyAt, startedAt, finishedAt });

describe('latencyBreakdown', () => {
  const run = { id: 'r1', externalRunId: '77', receivedAt: 1000, recommendationId: 'rec1', readyAt: 5000 };

  it('splits a run into its steps, their waits for a worker and the rest', () => {
    const [latency] = latencyBreakdown(
      [run],
      [
        // the log was not complete at first: the collection's second attempt waited 50 ms for a worker
        attempt('databricks.collect', { workspaceId: 'w', runId: '77' }, 1000, 1010, 1100),
        attempt('databricks.collect', { workspaceId: 'w', runId: '77' }, 1300, 1350, 1500),
        attempt('run.ingest', { runId: 'r1' }, 1500, 1500, 1600),
        attempt('run.parse', { runId: 'r1' }, 1600, 2000, 2400),
        attempt('run.cost', { runId: 'r1' }, 2400, 2400, 2500),
        attempt('run.request-recommendation', { runId: 'r1' }, 2500, 2500, 2520),
        // the recommendation is ready at 5000; its step goes on applying it until 5600
        attempt('recommendation.generate', { recommendationId: 'rec1' }, 2520, 3000, 5600),
        // another run's steps and a later attempt of the same recommendation do not count
        attempt('run.parse', { runId: 'r2' }, 1600, 1600, 3000),
        attempt('recommendation.generate', { recommendationId: 'rec1' }, 6000, 6000, 7000),
      ],
    );
    expect(latency).toEqual({
      runId: 'r1',
      total: 4000,
      collection: 1500 - 1010 - 50 + 100,
      parsing: 400,
      costing: 100,
      optimizer: 2000,
      queued: 10 + 50 + 400 + 480,
      other: 4000 - (540 + 400 + 100 + 2000 + 940),
    });
  });

  it('finds an EMR step by its cluster and step', () => {
    const emr = { ...run, externalRunId: 'j-1:s-1' };
    const [latency] = latencyBreakdown(
      [emr],
      [attempt('emr.collect', { workspaceId: 'w', clusterId: 'j-1', stepId: 's-1' }, 1000, 1200, 1700)],
    );
    expect(latency?.collection).toBe(500);
    expect(latency?.queued).toBe(200);
  });
});
