import type { NewCluster } from '@setpoint/api-contract/databricks';
import { shippedJobSettings } from '@setpoint/databricks-emulator/server/shipped-jobs';
import { shapeOfCluster } from 'setpoint/platforms/databricks/cluster-shape/cluster-shape';
import { volumesPerNodeOf } from 'setpoint/platforms/databricks/cluster-shape/cost-spec';
import { describe, expect, it } from 'vitest';

/**
 * A run's own EBS volumes are in its cost (`jobVolumes`): in the Job Bank only the job whose cluster attaches
 * volumes itself sees its cost change; every other job's clusters carry no volume, so their costs are as before.
 */
describe("the Job Bank's own EBS volumes", () => {
  it('are priced for Spill-heavy sort only', () => {
    const withVolumes = shippedJobSettings('aws').flatMap((job) =>
      [
        ...(job.job_clusters ?? []).map((entry) => entry.new_cluster),
        ...(job.tasks ?? []).flatMap((task) => (task.new_cluster ? [task.new_cluster] : [])),
      ].flatMap((cluster) => {
        const volumes = volumesPerNodeOf(shapeOfCluster(cluster as NewCluster, 'aws'));
        return volumes.length > 0 ? [{ job: job.name, volumes }] : [];
      }),
    );
    expect(withVolumes).toEqual([
      { job: 'Spill-heavy sort', volumes: [{ type: 'gp3', sizeGb: 100, count: 1 }] },
    ]);
    // an Azure workspace's clusters have managed disks, no EBS
    for (const job of shippedJobSettings('azure'))
      for (const task of job.tasks ?? [])
        if (task.new_cluster)
          expect(volumesPerNodeOf(shapeOfCluster(task.new_cluster as NewCluster, 'azure'))).toEqual([]);
  });
});
