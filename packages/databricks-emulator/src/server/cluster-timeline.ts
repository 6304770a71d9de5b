import type { ClusterEventRecord } from '../physics/simulation-types.js';
import type { ClusterRecord } from './emulator-state.js';

export interface ClusterTimes {
  requestedMs: number;
  readyMs: number;
  terminatingMs: number;
  terminatedMs: number;
}

/** Absolute times of a cluster's life, shortened when its run was cancelled. */
export function clusterTimes(cluster: ClusterRecord): ClusterTimes {
  const base = cluster.requestedAtMs;
  const sim = cluster.simulation;
  const times = {
    requestedMs: base,
    readyMs: base + sim.clusterReadyMs,
    terminatingMs: base + sim.terminatingMs,
    terminatedMs: base + sim.terminatedMs,
  };
  const cut = cluster.cutAtMs;
  if (cut === undefined || cut >= times.terminatingMs) return times;
  return {
    requestedMs: base,
    readyMs: Math.min(times.readyMs, cut),
    terminatingMs: cut + 1_000,
    terminatedMs: cut + 15_000,
  };
}

/** Cluster events with absolute timestamps, as far as they have happened by `nowMs`. */
export function clusterEventsAt(
  cluster: ClusterRecord,
  nowMs: number,
): Array<ClusterEventRecord & { timestamp: number }> {
  const base = cluster.requestedAtMs;
  const cut = cluster.cutAtMs;
  const events = cluster.simulation.clusterEvents
    .map((event) => ({ ...event, timestamp: base + event.offsetMs }))
    .filter(
      (event) =>
        cut === undefined || event.timestamp <= cut || base + cluster.simulation.terminatingMs <= cut,
    );
  if (cut !== undefined && cut < base + cluster.simulation.terminatingMs) {
    const withoutTerminating = events.filter((event) => event.type !== 'TERMINATING');
    withoutTerminating.push({
      offsetMs: cut + 1_000 - base,
      timestamp: cut + 1_000,
      type: 'TERMINATING',
      details: {
        reason: { code: 'USER_REQUEST', type: 'SUCCESS', parameters: { username: 'setpoint-emulator' } },
      },
    });
    return withoutTerminating.filter((event) => event.timestamp <= nowMs);
  }
  return events.filter((event) => event.timestamp <= nowMs);
}
