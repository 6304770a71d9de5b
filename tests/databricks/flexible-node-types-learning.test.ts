import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  processedRun,
  startHarness,
} from './integration-harness.js';

/**
 * Issue finding: with Databricks' flexible node types the instance that ran may differ from the one the
 * job names. A run on an alternate is learned as the hardware that ran (its runtime and cost filed under
 * that type), while the job's configuration stays what the team set: keeping it never writes the
 * alternate as node_type_id.
 */
describe('a run on a flexible node type alternate', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 41 });
    // the node timeline (system tables, through the workspace's SQL warehouse) says which type ran
    await databricksIntegrationOf(h.server.services).store.saveWorkspaceLink(h.workspaceId, {
      sqlWarehouseId: defaultWarehouseId,
    });
  }, 120_000);

  afterAll(async () => h?.close());

  it('is learned under the type that ran, and the job keeps the node type and alternates the team set', async () => {
    const jobId = await copyJob(h, 'Skewed join', 'Skewed join on i3', (settings) => {
      const cluster = (settings.tasks as Array<{ new_cluster: Record<string, unknown> }>)[0]?.new_cluster;
      if (!cluster) throw new Error('Skewed join has no task cluster');
      cluster.node_type_id = 'i3.xlarge';
      delete cluster.driver_node_type_id;
      // r5d.xlarge: 4 vCPUs like i3.xlarge, 105% of its memory, NVMe, x86 — a compatible alternate
      cluster.worker_node_type_flexibility = { alternate_node_type_ids: ['r5d.xlarge'] };
    });
    const { projectId, ref } = await importJob(h, jobId, { autoApply: false });
    if (!ref) throw new Error('no cluster ref');
    const runOnce = async () => processedRun(h, projectId, String(await h.databricks.runNow(jobId)));

    const first = await runOnce();
    // no capacity for i3.xlarge at the next launch: the workers start on the alternate
    const fault = await fetch(`${h.emulator.url}/emulator/admin/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'node-capacity', match: 'i3.xlarge', count: 1 }),
    });
    expect(fault.status).toBe(200);
    const second = await runOnce();

    const { runs, recommendations, applies } = h.server.services;
    const firstRun = await runs.get(projectId, first.id);
    const secondRun = await runs.get(projectId, second.id);
    // both runs were launched with the same configuration; the node timeline says the second ran on r5d
    expect(firstRun.clusterConfig?.node_type_id).toBe('i3.xlarge');
    expect(secondRun.clusterConfig?.node_type_id).toBe('i3.xlarge');
    expect(firstRun.clusterFacts?.ranOn).toBeUndefined();
    expect(secondRun.clusterFacts?.ranOn).toEqual({ nodeTypeId: 'r5d.xlarge', driverNodeTypeId: null });

    const recommendation = await eventually(async () => {
      const latest = await recommendations.latest(projectId).catch(() => undefined);
      return latest?.basedOnRunId === second.id ? latest : undefined;
    }, 'the recommendation made from the run on the alternate');
    // two runs of one configuration, learned as two: the hardware that ran differed
    expect(recommendation.decision?.basis).toMatchObject({ runs: 2, configurations: 2 });
    // what it writes names the job's own node type, never the alternate that stood in for it
    expect(JSON.stringify(recommendation.configuration)).not.toContain('r5d.xlarge');
    if (recommendation.decision?.action === 'keep') expect(recommendation.decision.change).toBe('no change');
    else expect(recommendation.configuration?.node_type_id).toBe('i3.xlarge');

    await applies.apply(projectId, recommendation.id, { actor: 'test', kind: 'apply' });
    const cluster = findClusterSpec((await h.databricks.getJob(jobId)).settings, ref);
    expect(cluster?.node_type_id).toBe('i3.xlarge');
    expect(cluster).toMatchObject({
      worker_node_type_flexibility: { alternate_node_type_ids: ['r5d.xlarge'] },
    });
  }, 240_000);
});
