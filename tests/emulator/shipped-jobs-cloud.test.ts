import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findNodeType } from '@setpoint/databricks-emulator/physics/node-types';
import type { JobSettings, NewClusterSettings } from '@setpoint/databricks-emulator/server/schema';
import { shippedJobSettings, type WorkspaceCloud } from '@setpoint/databricks-emulator/server/shipped-jobs';
import { demoWorkspace, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { describe, expect, it } from 'vitest';

function clustersOf(job: JobSettings): NewClusterSettings[] {
  return [
    ...(job.tasks ?? []).flatMap((task) => (task.new_cluster ? [task.new_cluster] : [])),
    ...(job.job_clusters ?? []).flatMap((entry) => (entry.new_cluster ? [entry.new_cluster] : [])),
  ];
}

const emulatorCloud = { aws: 'AWS', azure: 'Azure' } as const;

describe('the shipped jobs of an emulated workspace', () => {
  it.each<WorkspaceCloud>(['aws', 'azure'])(
    'on %s use only that cloud’s instance types and attributes, each one priced by Setpoint',
    (cloud) => {
      const jobs = shippedJobSettings(cloud);
      expect(jobs.length).toBeGreaterThanOrEqual(10);
      for (const job of jobs) {
        const clusters = clustersOf(job);
        expect(clusters.length, job.name).toBeGreaterThan(0);
        for (const cluster of clusters) {
          const types = [cluster.node_type_id, cluster.driver_node_type_id].filter(
            (type): type is string => typeof type === 'string',
          );
          for (const type of types) {
            expect(findNodeType(type)?.cloud, `${job.name}: ${type}`).toBe(emulatorCloud[cloud]);
            expect(catalogNodeSpecs(cloud, type), `${job.name}: ${type} priced on ${cloud}`).toBeDefined();
          }
          expect(
            cloud === 'aws' ? cluster.azure_attributes : cluster.aws_attributes,
            job.name,
          ).toBeUndefined();
        }
      }
    },
  );

  it('the two clouds hold the same jobs with the same sizes', () => {
    const shape = (jobs: JobSettings[]) =>
      jobs.map((job) => ({
        name: job.name,
        sizes: clustersOf(job).map((cluster) => [cluster.num_workers, cluster.autoscale]),
      }));
    expect(shape(shippedJobSettings('azure'))).toEqual(shape(shippedJobSettings('aws')));
  });

  it('the demo imports every job of its workspace on that workspace’s cloud', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'setpoint-demo-cloud-')), 'demo');
    const loop = await startClosedLoop({ port: 0, dataDir, seed: 3, clockSpeed: 0 });
    try {
      const workspace = await loop.server.services.workspaces.get(loop.workspaceId);
      expect(workspace.cloud).toBe(demoWorkspace.cloud);
      const response = await fetch(`${loop.emulator.url}/api/2.2/jobs/list?expand_tasks=true&limit=100`, {
        headers: { authorization: `Bearer ${loop.emulator.token}` },
      });
      const listed = (await response.json()) as { jobs: { settings: JobSettings }[] };
      expect(listed.jobs.length).toBe(loop.jobs.length);
      for (const { settings } of listed.jobs)
        for (const cluster of clustersOf(settings))
          expect(findNodeType(cluster.node_type_id ?? '')?.cloud, settings.name).toBe(
            emulatorCloud[demoWorkspace.cloud],
          );
    } finally {
      await loop.close();
    }
  });
});
