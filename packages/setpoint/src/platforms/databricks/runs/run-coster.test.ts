import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { runTimeline } from './run-coster.js';

const day = 86_400_000;
const start = Date.UTC(2026, 0, 10);
const end = start + 3_600_000;

describe('runTimeline from the event log', () => {
  it('prices an executor only while the application ran, whatever times the log gives it', () => {
    const profile = {
      application: { startTime: start, endTime: end, observedSpanMs: end - start },
      executors: {
        maxConcurrent: 2,
        timeline: [
          { id: 'driver', addedTime: start, removedTime: null },
          // a log put together from several runs, or a skewed executor clock (issue 40, finding 10)
          { id: '1', addedTime: start - 300 * day, removedTime: end + 300 * day },
          { id: '2', addedTime: start + 600_000, removedTime: null },
          { id: '3', addedTime: end + day, removedTime: end + 2 * day },
        ],
      },
    } as unknown as RunProfile;
    const timeline = runTimeline({
      profile,
      cluster: {
        source: 'eventlog',
        cloud: 'AWS',
        region: 'us-east-1',
        nodeTypeId: 'm5.xlarge',
        driverNodeTypeId: 'm5.xlarge',
        workers: 3,
        autoscale: null,
        photon: false,
        availability: null,
        sparkVersion: '15.4.x-scala2.12',
      },
      clusterReport: null,
      workspace: null,
    });
    const workers = timeline.nodes.filter((node) => node.role === 'worker');
    expect(workers.map((node) => [node.startMs - start, node.endMs - start])).toEqual([
      [0, end - start],
      [600_000, end - start],
      [end - start, end - start],
    ]);
  });
});
