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
    // 2 workers × 45 min; 4 asked for at 10 min (billed from their launch, not their arrival at 13):
    // 3 of them to 30 min (20), 1 kept to 45 min (35)
    expect(workerHours).toBe(2 * 45 + 3 * 20 + 1 * (45 - 10));
  });

  it('ends workers when a resize targets fewer than the cluster has, before any size report', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'm5.xlarge',
      autoscale: { min_workers: 1, max_workers: 4 },
    };
    const events = [
      event(0, 'CREATING'),
      event(3 * minute, 'RUNNING', { current_num_workers: 4 }),
      // the target drops while current_num_workers still counts the nodes about to go
      event(20 * minute, 'RESIZING', { current_num_workers: 4, target_num_workers: 1, cause: 'AUTOSCALE' }),
      event(40 * minute, 'TERMINATING'),
    ];

    const workers = reconstructNodeTimeline(cluster, events).nodes.filter((node) => node.role === 'worker');

    expect(workers.map((node) => node.endMs).sort((a, b) => a - b)).toEqual([
      20 * minute,
      20 * minute,
      20 * minute,
      40 * minute,
    ]);
  });

  it('starts replacements of lost nodes at the recovery request, and drops nodes that could not be added', () => {
    const cluster: Cluster = {
      cluster_id: 'c-1',
      node_type_id: 'm5.xlarge',
      num_workers: 2,
      aws_attributes: { availability: 'SPOT', first_on_demand: 1 },
    };
    const events = [
      event(0, 'CREATING'),
      event(3 * minute, 'RUNNING', { current_num_workers: 2 }),
      event(10 * minute, 'NODES_LOST', { current_num_workers: 1, target_num_workers: 2 }),
      event(10 * minute + 1_000, 'RESIZING', {
        current_num_workers: 1,
        target_num_workers: 2,
        cause: 'AUTORECOVERY',
      }),
      event(12 * minute, 'ADD_NODES_FAILED', { current_num_workers: 1, target_num_workers: 2 }),
      event(20 * minute, 'RESIZING', {
        current_num_workers: 1,
        target_num_workers: 2,
        cause: 'AUTORECOVERY',
      }),
      event(23 * minute, 'UPSIZE_COMPLETED', { current_num_workers: 2, target_num_workers: 2 }),
      event(40 * minute, 'TERMINATING'),
    ];

    const workers = reconstructNodeTimeline(cluster, events).nodes.filter((node) => node.role === 'worker');

    expect(workers.map((node) => [node.startMs, node.endMs])).toEqual([
      [0, 10 * minute],
      [0, 40 * minute],
      // the failed request is not billed; the replacement counts from the request that got it
      [20 * minute, 40 * minute],
    ]);
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
