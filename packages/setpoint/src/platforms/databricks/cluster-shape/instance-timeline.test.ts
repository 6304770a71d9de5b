import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterEvent } from '../api/schema.js';
import { shapeOfCluster } from './cluster-shape.js';
import { nodesFromInstances, nodeTimelineComplete, type ObservedInstance } from './instance-timeline.js';

const second = 1_000;
const minute = 60_000;
/** The cluster is requested 20 s into a minute, as real requests fall anywhere in one. */
const created = 100 * minute + 20 * second;
const terminated = created + 12 * minute + 5 * second;

const cluster: Cluster = {
  cluster_id: 'c-1',
  node_type_id: 'r5.xlarge',
  driver_node_type_id: 'm5.large',
  num_workers: 2,
  aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
};
const shape = shapeOfCluster(cluster, 'aws');
const event = (timestamp: number, type: string, details: Record<string, unknown> = {}): ClusterEvent => ({
  cluster_id: 'c-1',
  timestamp,
  type,
  details,
});
const floorMinute = (ms: number) => Math.floor(ms / minute) * minute;
const ceilMinute = (ms: number) => Math.ceil(ms / minute) * minute;
/** The rows node_timeline writes for a node that ran from `fromMs` to `toMs`. */
const observed = (
  instanceId: string,
  fromMs: number,
  toMs: number,
  role: 'driver' | 'worker' = 'worker',
): ObservedInstance => ({
  instanceId,
  driver: role === 'driver',
  nodeType: role === 'driver' ? 'm5.large' : 'r5.xlarge',
  firstStartMs: floorMinute(fromMs),
  lastEndMs: ceilMinute(toMs),
});

describe('nodes timed from the node timeline', () => {
  it('ends every node still there at termination exactly then, and starts none before the request', () => {
    const instances = [
      observed('i-driver', created + 10 * second, terminated, 'driver'),
      observed('i-1', created + 10 * second, terminated),
      observed('i-2', created + 10 * second, terminated),
    ];

    const nodes = nodesFromInstances(instances, [], { createdMs: created, terminatedMs: terminated }, shape);

    expect(nodes.map((node) => node.endMs)).toEqual([terminated, terminated, terminated]);
    // the first row covers 20 s before the request: the start is the middle of what is left of it
    for (const node of nodes) expect(node.startMs).toBe((created + floorMinute(created) + minute) / 2);
    expect(nodes.map((node) => [node.role, node.market])).toEqual([
      ['driver', 'on-demand'],
      ['worker', 'spot-with-fallback'],
      ['worker', 'spot-with-fallback'],
    ]);
  });

  it('starts a node that joined later within its own first minute, not at the cluster creation', () => {
    const joined = created + 5 * minute + 40 * second;
    const [late] = nodesFromInstances(
      [observed('i-3', joined, terminated)],
      [],
      { createdMs: created, terminatedMs: terminated },
      shape,
    );

    expect(late?.startMs).toBe(floorMinute(joined) + 30 * second);
    expect(Math.abs((late?.startMs ?? 0) - joined)).toBeLessThanOrEqual(30 * second);
  });

  it('ends a node at the NODES_LOST event that names its instance', () => {
    const lostAt = created + 7 * minute + 13 * second;
    const [lost, kept] = nodesFromInstances(
      [
        observed('i-lost', created + 10 * second, lostAt),
        observed('i-kept', created + 10 * second, terminated),
      ],
      [event(lostAt, 'NODES_LOST', { current_num_workers: 1, instance_id: 'i-lost' })],
      { createdMs: created, terminatedMs: terminated },
      shape,
    );

    expect(lost?.endMs).toBe(lostAt);
    expect(kept?.endMs).toBe(terminated);
  });

  it('ends a node that left unannounced in the middle of its last minute', () => {
    const leftAt = created + 8 * minute;
    const [node] = nodesFromInstances(
      [observed('i-4', created + 10 * second, leftAt)],
      [],
      { createdMs: created, terminatedMs: terminated },
      shape,
    );

    expect(node?.endMs).toBe(ceilMinute(leftAt) - 30 * second);
  });

  it('counts as complete only once the cluster terminated and the minute it terminated in is there', () => {
    const running = [observed('i-1', created, terminated - 2 * minute)];
    const whole = [observed('i-1', created, terminated)];

    expect(nodeTimelineComplete(whole, { createdMs: created, terminatedMs: terminated })).toBe(true);
    expect(nodeTimelineComplete(running, { createdMs: created, terminatedMs: terminated })).toBe(false);
    expect(nodeTimelineComplete(whole, { createdMs: created, terminatedMs: undefined })).toBe(false);
    expect(nodeTimelineComplete([], { createdMs: created, terminatedMs: terminated })).toBe(false);
  });
});
