import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { describe, expect, it } from 'vitest';
import { type TestEmulator, testEmulator } from './support.js';

const hourMs = 3_600_000;
const runs = 6;

/** Runs the shipped job `runs` times, one after another, each until its cluster's logs are delivered. */
async function runRepeatedly(api: TestEmulator): Promise<void> {
  const { state, clock } = api.emulator.context;
  for (let index = 0; index < runs; index += 1) {
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1001 })).json.run_id as number;
    const run = state.runs.get(runId)!;
    const clusters = [...state.clusters.values()].filter((cluster) => cluster.runId === runId);
    const terminated = Math.max(...clusters.map((c) => c.requestedAtMs + c.simulation.terminatedMs));
    // the final log delivery comes within three minutes of termination
    await api.advance(Math.max(run.endMs, terminated) + 4 * 60_000 - clock.now());
    expect(clusters.every((cluster) => cluster.finalLogsDelivered)).toBe(true);
  }
}

function heldDetail(api: TestEmulator) {
  const clusters = [...api.emulator.context.state.clusters.values()];
  return {
    clusters: clusters.length,
    tasks: clusters.reduce((sum, cluster) => sum + cluster.simulation.tasks.length, 0),
    clustersWithDetail: clusters.filter((cluster) => cluster.simulation.tasks.length > 0).length,
  };
}

async function nodeTimeline(api: TestEmulator) {
  const answer = await api.call('POST', '/api/2.0/sql/statements', {
    warehouse_id: defaultWarehouseId,
    statement: `SELECT cluster_id, instance_id, start_time, cpu_user_percent, cpu_system_percent, network_sent_bytes
                FROM system.compute.node_timeline ORDER BY cluster_id, instance_id, start_time`,
    wait_timeout: '30s',
  });
  expect(answer.status, answer.text).toBe(200);
  const result = answer.json.result as { data_array?: unknown[][] } | undefined;
  return result?.data_array ?? [];
}

describe("a terminated cluster's Spark detail", () => {
  it('is kept for the emulator lifetime when no retention is set', async () => {
    const api = await testEmulator({ seed: 5 });
    try {
      await runRepeatedly(api);
      await api.advance(3 * hourMs);
      const held = heldDetail(api);
      expect(held.clusters).toBe(runs);
      expect(held.clustersWithDetail).toBe(runs);
    } finally {
      await api.emulator.close();
    }
  });

  it('is retired after the retention once the logs are delivered, memory stays bounded, the system tables stay the same', async () => {
    const kept = await testEmulator({ seed: 5 });
    const retired = await testEmulator({ seed: 5, clusterDetailRetentionMs: 5 * 60_000 });
    try {
      await runRepeatedly(kept);
      await runRepeatedly(retired);
      const perCluster = heldDetail(kept).tasks / runs;
      expect(perCluster).toBeGreaterThan(0);
      // older clusters were retired while the newer runs ran: at most the newest two still hold detail
      expect(heldDetail(retired).clustersWithDetail).toBeLessThanOrEqual(2);
      expect(heldDetail(retired).clustersWithDetail).toBeGreaterThan(0);

      await kept.advance(2 * hourMs);
      await retired.advance(2 * hourMs);
      const held = heldDetail(retired);
      expect(held.clusters).toBe(runs);
      expect(held.tasks).toBe(0);
      for (const cluster of retired.emulator.context.state.clusters.values())
        expect(cluster.retiredBusyByMinute?.size).toBeGreaterThan(0);

      // the APIs still answer for the retired clusters, and the busy-core figures come from the summary
      const clusterId = [...retired.emulator.context.state.clusters.keys()][0];
      expect((await retired.call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`)).status).toBe(200);
      const timeline = await nodeTimeline(retired);
      expect(timeline.length).toBeGreaterThan(runs);
      expect(timeline).toEqual(await nodeTimeline(kept));
    } finally {
      await kept.emulator.close();
      await retired.emulator.close();
    }
  });
});
