import type { BusyByMinute, ClusterRecord } from './emulator-state.js';

const minuteMs = 60_000;

/**
 * Cluster-wide busy worker core time and shuffle bytes per minute, from the simulated tasks; once the
 * cluster's task detail is retired (see `RunEngine`), the summary kept in its place.
 */
export function busyByMinute(cluster: ClusterRecord): BusyByMinute {
  if (cluster.retiredBusyByMinute) return cluster.retiredBusyByMinute;
  const perMinute = new Map<number, { busyCoreMs: number; shuffleBytes: number }>();
  for (const task of cluster.simulation.tasks) {
    const start = cluster.requestedAtMs + task.launchMs;
    const end = cluster.requestedAtMs + task.finishMs;
    if (end <= start) continue;
    const cpuShare = Math.min(1, task.metrics.cpuNs / 1e6 / Math.max(1, task.metrics.runMs));
    const shuffle = task.metrics.shuffleRemoteBytes + task.metrics.shuffleWriteBytes;
    for (let minute = Math.floor(start / minuteMs) * minuteMs; minute < end; minute += minuteMs) {
      const overlap = Math.min(end, minute + minuteMs) - Math.max(start, minute);
      const entry = perMinute.get(minute) ?? { busyCoreMs: 0, shuffleBytes: 0 };
      entry.busyCoreMs += overlap * cpuShare;
      entry.shuffleBytes += (shuffle * overlap) / (end - start);
      perMinute.set(minute, entry);
    }
  }
  return perMinute;
}
