import { parse } from '@cdktf/hcl2json';
import { describe, expect, it } from 'vitest';
import type { EmrChoice } from '../recommender/emr-choice.js';
import { emrConfigurationOf } from '../recommender/emr-configuration.js';
import { exportEmrTerraform } from './emr-terraform-export.js';

const choice: EmrChoice = {
  collection: 'instance-groups',
  primaryType: 'm5.xlarge',
  workerType: 'r5.2xlarge',
  core: 3,
  task: 5,
  taskMarket: 'spot',
  volumes: [
    { volumeType: 'gp3', sizeGb: 128 },
    { volumeType: 'gp3', sizeGb: 128 },
  ],
  rootVolumeGb: null,
  longRunning: false,
  managedScaling: true,
};
const onDemand = (type: string) => ({ 'r5.2xlarge': 0.504 })[type] ?? Number.NaN;

type Parsed = { resource: Record<string, Record<string, [Record<string, unknown>]>> };

describe('EMR exports', () => {
  it('terraform: aws_emr_cluster groups with ignore_changes, the task group and the scaling policy as their own resources', async () => {
    const hcl = exportEmrTerraform({
      resourceName: 'orders',
      choice,
      onDemandUsdPerHour: onDemand,
      header: ['Setpoint recommendation rec_1'],
    });
    const parsed = (await parse('main.tf', hcl)) as Parsed;
    const cluster = parsed.resource.aws_emr_cluster?.orders?.[0] as Record<string, [Record<string, unknown>]>;
    expect(cluster.master_instance_group?.[0]).toMatchObject({
      instance_type: 'm5.xlarge',
      instance_count: 1,
    });
    expect(cluster.core_instance_group?.[0]).toMatchObject({
      instance_type: 'r5.2xlarge',
      instance_count: 3,
      ebs_config: [{ size: 128, type: 'gp3', volumes_per_instance: 2 }],
    });
    expect(cluster.lifecycle?.[0]?.ignore_changes).toEqual([
      `\${master_instance_group[0].instance_type}`,
      `\${core_instance_group[0].instance_type}`,
      `\${core_instance_group[0].instance_count}`,
      `\${core_instance_group[0].ebs_config}`,
    ]);
    const task = parsed.resource.aws_emr_instance_group?.orders_task?.[0];
    // Spot in Terraform is a bid price: the on-demand price, EMR's default maximum.
    expect(task).toMatchObject({
      cluster_id: `\${aws_emr_cluster.orders.id}`,
      instance_type: 'r5.2xlarge',
      instance_count: 5,
      bid_price: '0.5040',
    });
    const scaling = parsed.resource.aws_emr_managed_scaling_policy?.orders?.[0];
    expect(scaling?.compute_limits).toEqual([
      {
        unit_type: 'Instances',
        minimum_capacity_units: 3,
        maximum_capacity_units: 8,
        maximum_core_capacity_units: 3,
      },
    ]);
    expect(hcl).toContain('# Setpoint recommendation rec_1');
  });

  it('terraform for fleets: targets, spot with fallback on the task fleet', async () => {
    const fleets: EmrChoice = {
      ...choice,
      collection: 'instance-fleets',
      taskMarket: 'spot-with-fallback',
      managedScaling: false,
    };
    const parsed = (await parse(
      'main.tf',
      exportEmrTerraform({ resourceName: 'f', choice: fleets, onDemandUsdPerHour: onDemand, header: [] }),
    )) as Parsed;
    const cluster = parsed.resource.aws_emr_cluster?.f?.[0] as Record<string, [Record<string, unknown>]>;
    expect(cluster.core_instance_fleet?.[0]).toMatchObject({
      target_on_demand_capacity: 3,
      target_spot_capacity: 0,
    });
    const task = parsed.resource.aws_emr_instance_fleet?.f_task?.[0] as Record<string, unknown>;
    expect(task).toMatchObject({ target_on_demand_capacity: 0, target_spot_capacity: 5 });
    expect(JSON.stringify(task.launch_specifications)).toContain('SWITCH_TO_ON_DEMAND');
    expect(parsed.resource.aws_emr_managed_scaling_policy).toBeUndefined();
  });

  it('the RunJobFlow Instances block (export --format emr) says the same as the Terraform', () => {
    const configuration = emrConfigurationOf(choice) as {
      Instances: { InstanceGroups: Record<string, unknown>[] };
    };
    expect(configuration.Instances.InstanceGroups).toEqual([
      {
        Name: 'Primary',
        InstanceRole: 'MASTER',
        Market: 'ON_DEMAND',
        InstanceType: 'm5.xlarge',
        InstanceCount: 1,
      },
      {
        Name: 'Core',
        InstanceRole: 'CORE',
        Market: 'ON_DEMAND',
        InstanceType: 'r5.2xlarge',
        InstanceCount: 3,
        EbsConfiguration: {
          EbsBlockDeviceConfigs: [
            { VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 128 }, VolumesPerInstance: 2 },
          ],
        },
      },
      {
        Name: 'Task',
        InstanceRole: 'TASK',
        Market: 'SPOT',
        InstanceType: 'r5.2xlarge',
        InstanceCount: 5,
        EbsConfiguration: {
          EbsBlockDeviceConfigs: [
            { VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 128 }, VolumesPerInstance: 2 },
          ],
        },
      },
    ]);
  });
});
