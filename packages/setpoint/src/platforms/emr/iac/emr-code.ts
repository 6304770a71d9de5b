import type { DesiredFields, DesiredValue } from '../../../iac/code-edit.js';
import { sourceTagKey } from '../../../iac/source-address.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { PlatformCode } from '../../../service/code/platform-code.js';
import type { RunService } from '../../../service/runs/run-service.js';
import { launchRecordOf } from '../apply/launched-cluster.js';
import { choiceOfConfiguration } from '../export/emr-export-service.js';
import type { EmrChoice } from '../recommender/emr-choice.js';
import { ebsConfiguration, instancesBlockOf } from '../recommender/emr-configuration.js';
import { type EmrRunReport, emrRunReportSchema } from '../runs/emr-run-report.js';
import type { EmrRepository } from '../store/emr-repository.js';

/** The `ebs_config` blocks of an AWS provider instance group for the choice's volumes. */
function ebsBlocks(choice: EmrChoice): DesiredFields[] {
  return (ebsConfiguration(choice.volumes)?.EbsBlockDeviceConfigs ?? []).map(
    ({ VolumeSpecification: volume, VolumesPerInstance }) => ({
      size: volume.SizeInGB as number,
      type: volume.VolumeType as string,
      ...(volume.Iops === undefined ? {} : { iops: volume.Iops as number }),
      ...(volume.Throughput === undefined ? {} : { throughput: volume.Throughput as number }),
      volumes_per_instance: VolumesPerInstance,
    }),
  );
}

/** RunJobFlow's instance groups keyed by role, as a DAG's `job_flow_overrides` should hold them. */
function instanceGroupEntries(choice: EmrChoice): Record<string, DesiredFields | null> {
  const block = instancesBlockOf(choice) as { InstanceGroups?: Record<string, unknown>[] };
  const entries: Record<string, DesiredFields | null> = { TASK: null };
  for (const group of block.InstanceGroups ?? []) {
    // the team's group names and the primary's and core's market stay as written
    const { InstanceRole: role, Name: _name, Market: market, EbsConfiguration: ebs, ...fields } = group;
    const values: Record<string, DesiredValue> = { ...(fields as Record<string, number | string>) };
    if (role === 'TASK') values.Market = market as string;
    if (ebs) values.EbsConfiguration = { block: { EbsBlockDeviceConfigs: { blocks: ebsBlocksOf(ebs) } } };
    entries[role as string] = values;
  }
  return entries;
}

function ebsBlocksOf(ebs: unknown): DesiredFields[] {
  const configs = (
    ebs as {
      EbsBlockDeviceConfigs: {
        VolumeSpecification: Record<string, number | string>;
        VolumesPerInstance: number;
      }[];
    }
  ).EbsBlockDeviceConfigs;
  return configs.map((config) => ({
    VolumeSpecification: { block: config.VolumeSpecification },
    VolumesPerInstance: config.VolumesPerInstance,
  }));
}

function latestReport(reports: unknown): EmrRunReport | null {
  const parsed = emrRunReportSchema.safeParse(reports);
  return parsed.success ? parsed.data : null;
}

/** Whether a launched cluster's instance groups are the choice (primary, core and task types and counts). */
function shapeIs(report: EmrRunReport, choice: EmrChoice): boolean {
  if (report.shape.kind !== 'instance-groups' || choice.collection !== 'instance-groups') return false;
  const groups = report.shape.groups;
  const count = (role: string) =>
    groups.filter((group) => group.role === role).reduce((sum, group) => sum + group.count, 0);
  const types = (role: string) =>
    new Set(
      groups.filter((group) => group.role === role && group.count > 0).map((group) => group.instanceType),
    );
  const only = (role: string, type: string) => {
    const found = types(role);
    return found.size === 0 || (found.size === 1 && found.has(type));
  };
  return (
    only('MASTER', choice.primaryType) &&
    types('MASTER').size === 1 &&
    only('CORE', choice.workerType) &&
    count('CORE') === choice.core &&
    only('TASK', choice.workerType) &&
    count('TASK') === choice.task
  );
}

/**
 * EMR's side of proposals: the recommendation as Terraform (`aws_emr_cluster` primary and core groups,
 * the task group's `aws_emr_instance_group`, added when the recommendation starts one) and as an Airflow
 * `EmrCreateJobFlowOperator`'s `job_flow_overrides`; a launched cluster runs it when its groups match.
 */
export function createEmrCode(deps: {
  store: Pick<EmrRepository, 'workloadOfProject'>;
  runs: Pick<RunService, 'list'>;
  catalog: PriceCatalog;
  region(workspaceId: string): Promise<string>;
}): PlatformCode {
  async function latest(projectId: string): Promise<EmrRunReport | null> {
    const run = (await deps.runs.list(projectId, { limit: 1, offset: 0 })).items[0];
    return run ? latestReport(run.clusterConfig) : null;
  }

  return {
    async declaredSource(projectId) {
      const report = await latest(projectId);
      return { deployedFrom: null, locked: false, sourceTag: report?.cluster.tags[sourceTagKey] ?? null };
    },

    async edits(projectId, configuration) {
      const workload = await deps.store.workloadOfProject(projectId);
      const choice = choiceOfConfiguration(configuration, Boolean(workload?.clusterId));
      if (choice.collection !== 'instance-groups') return {};
      const report = await latest(projectId);
      const name = report?.cluster.name ?? workload?.key ?? projectId;
      const spot = choice.taskMarket !== 'on-demand';
      const region = workload ? await deps.region(workload.workspaceId) : 'us-east-1';
      const bid = spot
        ? deps.catalog.onDemandPrice('aws', region, choice.workerType).usdPerHour.toFixed(4)
        : null;
      const task: DesiredFields = {
        instance_type: choice.workerType,
        instance_count: choice.task,
        bid_price: bid,
      };
      return {
        terraform: {
          format: 'terraform',
          resources: [
            {
              type: 'aws_emr_cluster',
              match: { attribute: 'name', equals: name },
              path: [],
              fields: {
                master_instance_group: { block: { instance_type: choice.primaryType } },
                core_instance_group: {
                  block: {
                    instance_type: choice.workerType,
                    instance_count: choice.core,
                    ...(choice.volumes.length > 0 ? { ebs_config: { blocks: ebsBlocks(choice) } } : {}),
                  },
                },
              },
            },
            {
              type: 'aws_emr_instance_group',
              match: { attribute: 'cluster_id', references: { resource: 0, attribute: 'id' } },
              path: [],
              fields: task,
              whenMissing:
                choice.task === 0
                  ? 'skip'
                  : {
                      append: {
                        suffix: '_task',
                        fields: {
                          cluster_id: { reference: { resource: 0, attribute: 'id' } },
                          name: 'Task',
                          ...task,
                          ...(choice.volumes.length > 0 ? { ebs_config: { blocks: ebsBlocks(choice) } } : {}),
                        },
                      },
                    },
            },
          ],
        },
        airflow: {
          format: 'airflow',
          operators: ['EmrCreateJobFlowOperator'],
          locations: [{ argument: 'job_flow_overrides', path: [] }],
          fields: {
            Instances: {
              block: {
                InstanceGroups: { keyed: { key: 'InstanceRole', entries: instanceGroupEntries(choice) } },
              },
            },
          },
          fallback: 'setpoint.emr_airflow.pre_execute_hook',
        },
      };
    },

    async deployed(projectId, configuration) {
      const report = await latest(projectId);
      if (!report) return null;
      const workload = await deps.store.workloadOfProject(projectId);
      if (!shapeIs(report, choiceOfConfiguration(configuration, Boolean(workload?.clusterId)))) return null;
      return launchRecordOf(report);
    },
  };
}
