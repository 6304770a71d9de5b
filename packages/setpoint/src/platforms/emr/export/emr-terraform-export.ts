import { type HclBlock, type HclValue, writeHclBlock } from '../../../export/hcl-writer.js';
import type { EmrVolume } from '../cluster-shape/emr-cluster-shape.js';
import type { EmrChoice } from '../recommender/emr-choice.js';
import { spotTimeoutMinutes } from '../recommender/emr-configuration.js';

export interface EmrTerraformInput {
  /** The Terraform name of the `aws_emr_cluster` resource (`aws_emr_cluster.<name>`). */
  resourceName: string;
  choice: EmrChoice;
  /** Terraform expresses spot instance groups by a bid price: Setpoint bids the on-demand price (EMR's default). */
  onDemandUsdPerHour(instanceType: string): number;
  header: string[];
}

function ebsConfigBlocks(volumes: readonly EmrVolume[]): HclBlock[] {
  const blocks: { volume: EmrVolume; count: number }[] = [];
  for (const volume of volumes) {
    const same = blocks.find((block) => JSON.stringify(block.volume) === JSON.stringify(volume));
    if (same) same.count += 1;
    else blocks.push({ volume, count: 1 });
  }
  return blocks.map(({ volume, count }) => ({
    type: 'ebs_config',
    attributes: [
      ['size', volume.sizeGb],
      ['type', volume.volumeType],
      ...(volume.iops === undefined ? [] : [['iops', volume.iops] as [string, HclValue]]),
      ...(volume.throughputMibps === undefined
        ? []
        : [['throughput', volume.throughputMibps] as [string, HclValue]]),
      ['volumes_per_instance', count],
    ],
  }));
}

const bid = (usdPerHour: number) => usdPerHour.toFixed(4);

/** The paths of `aws_emr_cluster` Setpoint manages: `terraform apply` leaves them to Setpoint. */
export function emrIgnoreChangesPaths(choice: EmrChoice): string[] {
  return choice.collection === 'instance-groups'
    ? [
        'master_instance_group[0].instance_type',
        'core_instance_group[0].instance_type',
        'core_instance_group[0].instance_count',
        'core_instance_group[0].ebs_config',
      ]
    : [
        'master_instance_fleet[0].instance_type_configs',
        'core_instance_fleet[0].target_on_demand_capacity',
        'core_instance_fleet[0].target_spot_capacity',
        'core_instance_fleet[0].instance_type_configs',
      ];
}

/**
 * Terraform for a recommendation: the `aws_emr_cluster`'s primary and core groups (or fleets) with a
 * `lifecycle { ignore_changes }` on what Setpoint manages, the task group or fleet as its own resource
 * (`aws_emr_instance_group` / `aws_emr_instance_fleet`, as the AWS provider models task capacity), and
 * `aws_emr_managed_scaling_policy` when the cluster scales. Other arguments of the cluster (release,
 * roles, networking, steps) stay as the user's configuration has them.
 */
export function exportEmrTerraform(input: EmrTerraformInput): string {
  const { choice, resourceName } = input;
  const clusterRef = { raw: `aws_emr_cluster.${resourceName}.id` };
  const groups = choice.collection === 'instance-groups';
  const clusterBlocks: HclBlock[] = groups
    ? [
        {
          type: 'master_instance_group',
          attributes: [
            ['instance_type', choice.primaryType],
            ['instance_count', 1],
          ],
        },
        {
          type: 'core_instance_group',
          attributes: [
            ['instance_type', choice.workerType],
            ['instance_count', choice.core],
          ],
          blocks: ebsConfigBlocks(choice.volumes),
        },
      ]
    : [
        {
          type: 'master_instance_fleet',
          attributes: [['target_on_demand_capacity', 1]],
          blocks: [{ type: 'instance_type_configs', attributes: [['instance_type', choice.primaryType]] }],
        },
        {
          type: 'core_instance_fleet',
          attributes: [
            ['target_on_demand_capacity', choice.core],
            ['target_spot_capacity', 0],
          ],
          blocks: [
            {
              type: 'instance_type_configs',
              attributes: [
                ['instance_type', choice.workerType],
                ['weighted_capacity', 1],
              ],
              blocks: ebsConfigBlocks(choice.volumes),
            },
          ],
        },
      ];
  const blocks: HclBlock[] = [
    {
      type: 'resource',
      labels: ['aws_emr_cluster', resourceName],
      comments: [
        ...input.header,
        'Only the instance arguments Setpoint manages are shown; keep the rest of your configuration.',
      ],
      blocks: [
        ...clusterBlocks,
        {
          type: 'lifecycle',
          attributes: [['ignore_changes', emrIgnoreChangesPaths(choice).map((path) => ({ raw: path }))]],
        },
      ],
    },
  ];
  if (choice.task > 0) {
    const spot = choice.taskMarket !== 'on-demand';
    blocks.push(
      groups
        ? {
            type: 'resource',
            labels: ['aws_emr_instance_group', `${resourceName}_task`],
            attributes: [
              ['cluster_id', clusterRef],
              ['name', 'Task'],
              ['instance_type', choice.workerType],
              ['instance_count', choice.task],
              ...(spot
                ? [['bid_price', bid(input.onDemandUsdPerHour(choice.workerType))] as [string, HclValue]]
                : []),
            ],
            blocks: [
              ...ebsConfigBlocks(choice.volumes),
              {
                type: 'lifecycle',
                attributes: [
                  [
                    'ignore_changes',
                    [{ raw: 'instance_count' }, { raw: 'instance_type' }, { raw: 'bid_price' }],
                  ],
                ],
              },
            ],
          }
        : {
            type: 'resource',
            labels: ['aws_emr_instance_fleet', `${resourceName}_task`],
            attributes: [
              ['cluster_id', clusterRef],
              ['name', 'Task'],
              ['target_on_demand_capacity', spot ? 0 : choice.task],
              ['target_spot_capacity', spot ? choice.task : 0],
            ],
            blocks: [
              {
                type: 'instance_type_configs',
                attributes: [
                  ['instance_type', choice.workerType],
                  ['weighted_capacity', 1],
                ],
                blocks: ebsConfigBlocks(choice.volumes),
              },
              ...(spot
                ? [
                    {
                      type: 'launch_specifications',
                      blocks: [
                        {
                          type: 'spot_specification',
                          attributes: [
                            ['allocation_strategy', 'capacity-optimized'],
                            [
                              'timeout_action',
                              choice.taskMarket === 'spot-with-fallback'
                                ? 'SWITCH_TO_ON_DEMAND'
                                : 'TERMINATE_CLUSTER',
                            ],
                            ['timeout_duration_minutes', spotTimeoutMinutes],
                          ] as [string, HclValue][],
                        },
                      ],
                    },
                  ]
                : []),
              {
                type: 'lifecycle',
                attributes: [
                  [
                    'ignore_changes',
                    [
                      { raw: 'target_on_demand_capacity' },
                      { raw: 'target_spot_capacity' },
                      { raw: 'instance_type_configs' },
                    ],
                  ],
                ],
              },
            ],
          },
    );
  }
  if (choice.managedScaling)
    blocks.push({
      type: 'resource',
      labels: ['aws_emr_managed_scaling_policy', resourceName],
      attributes: [['cluster_id', clusterRef]],
      blocks: [
        {
          type: 'compute_limits',
          attributes: [
            ['unit_type', groups ? 'Instances' : 'InstanceFleetUnits'],
            ['minimum_capacity_units', choice.core],
            ['maximum_capacity_units', choice.core + choice.task],
            ['maximum_core_capacity_units', choice.core],
          ],
        },
      ],
    });
  return `${blocks.map((block) => writeHclBlock(block)).join('\n\n')}\n`;
}
