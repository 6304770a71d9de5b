import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterEvent } from '../api/schema.js';
import { shapeOfCluster } from './cluster-shape.js';
import { reconstructNodeTimeline as reconstruct } from './node-timeline.js';

/** The timeline as the coster builds it: the cluster's shape parsed once, then its events replayed. */
const reconstructNodeTimeline = (cluster: Cluster, events: ClusterEvent[]) =>
  reconstruct(cluster, events, shapeOfCluster(cluster, 'aws'));

const minute = 60_000;
const event = (timestamp: number, type: string, details: Record<string, unknown> = {}): ClusterEvent => ({
  cluster_id: 'c-1',
  timestamp,
  type,
  details,
});

describe('reconstructNodeTimeline', () => {
  it('bills a fixed on-demand cluster from creation to termination', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'm5.xlarge',
      num_workers: 2,
      aws_attributes: { availability: 'ON_DEMAND' },
    };
    const events = [
      event(0, 'CREATING'),
      event(4 * minute, 'RUNNING', { current_num_workers: 2 }),
      event(64 * minute, 'TERMINATING'),
    ];

    const timeline = reconstructNodeTimeline(cluster, events);

    expect(timeline.nodes).toEqual([
      { role: 'driver', nodeType: 'm5.xlarge', startMs: 0, endMs: 64 * minute, market: 'on-demand' },
      { role: 'worker', nodeType: 'm5.xlarge', startMs: 0, endMs: 64 * minute, market: 'on-demand' },
      { role: 'worker', nodeType: 'm5.xlarge', startMs: 0, endMs: 64 * minute, market: 'on-demand' },
    ]);
    expect(timeline.maxWorkers).toBe(2);
  });

  it('ends lost spot nodes at the loss and starts their replacements when the cluster grows back', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'r5.xlarge',
      driver_node_type_id: 'm5.large',
      num_workers: 3,
      aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
    };
    const events = [
      event(0, 'CREATING'),
      event(5 * minute, 'RUNNING', { current_num_workers: 3 }),
      event(20 * minute, 'NODES_LOST', { current_num_workers: 2 }),
      event(23 * minute, 'UPSIZE_COMPLETED', { current_num_workers: 3 }),
      event(40 * minute, 'TERMINATING', { reason: { code: 'JOB_FINISHED' } }),
    ];

    const timeline = reconstructNodeTimeline(cluster, events);

    expect(timeline.nodesLost).toBe(1);
    expect(timeline.nodes[0]).toMatchObject({ role: 'driver', nodeType: 'm5.large', market: 'on-demand' });
    const workers = timeline.nodes.filter((node) => node.role === 'worker');
    expect(workers).toHaveLength(4);
    // which workers fell back to on-demand is not reported: their range reaches the on-demand price
    expect(workers.every((worker) => worker.market === 'spot-with-fallback')).toBe(true);
    expect(workers.filter((worker) => worker.endMs === 20 * minute)).toHaveLength(1);
    expect(
      workers.filter((worker) => worker.startMs === 23 * minute && worker.endMs === 40 * minute),
    ).toHaveLength(1);
  });

  it('follows autoscaling up and down', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'm5.xlarge',
      autoscale: { min_workers: 2, max_workers: 6 },
    };
    const events = [
      event(0, 'CREATING'),
      event(3 * minute, 'RUNNING', { current_num_workers: 2 }),
      event(10 * minute, 'RESIZING', { current_num_workers: 2, target_num_workers: 6 }),
      event(13 * minute, 'UPSIZE_COMPLETED', { current_num_workers: 6 }),
      event(30 * minute, 'RESIZING', { current_num_workers: 3, target_num_workers: 3 }),
      event(45 * minute, 'TERMINATING'),
    ];

    const timeline = reconstructNodeTimeline(cluster, events);
    const workerHours = timeline.nodes
      .filter((node) => node.role === 'worker')
      .reduce((sum, node) => sum + (node.endMs - node.startMs) / minute, 0);

    expect(timeline.maxWorkers).toBe(6);
    // 2 workers × 45 min + 4 workers × 13→30 min (17) + 1 of them kept to 45 min (15)
    expect(workerHours).toBe(2 * 45 + 3 * 17 + 1 * (45 - 13));
  });

  it('keeps the first first_on_demand − 1 workers on-demand', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'm5.xlarge',
      aws_attributes: { availability: 'SPOT', first_on_demand: 3 },
    };
    const events = [
      event(0, 'CREATING'),
      event(1, 'RUNNING', { current_num_workers: 4 }),
      event(10, 'TERMINATING'),
    ];

    const markets = reconstructNodeTimeline(cluster, events).nodes.map(
      (node) => `${node.role}:${node.market}`,
    );

    expect(markets).toEqual([
      'driver:on-demand',
      'worker:on-demand',
      'worker:on-demand',
      'worker:spot',
      'worker:spot',
    ]);
  });
});
