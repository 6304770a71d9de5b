import type { ExportFormat } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { terraformResourceName } from '../../../export/hcl-writer.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { Project } from '../../../service/projects/project-records.js';
import type { RecommendationRecord } from '../../../service/recommendations/recommendation-records.js';
import { predictionLine } from '../../../service/recommender/prediction-words.js';
import type { EmrVolume } from '../cluster-shape/emr-cluster-shape.js';
import type { EmrChoice } from '../recommender/emr-choice.js';
import type { EmrRepository } from '../store/emr-repository.js';
import { assertEmrAccepted, launchRequestOf } from '../validity/accepted-request.js';
import { exportEmrTerraform } from './emr-terraform-export.js';

export type ExportEmrRecommendation = (
  project: Project,
  recommendation: RecommendationRecord,
  format: ExportFormat,
) => Promise<string>;

const ebsSchema = z
  .object({
    EbsBlockDeviceConfigs: z.array(
      z.object({
        VolumeSpecification: z.object({
          VolumeType: z.string(),
          SizeInGB: z.number().int().positive(),
          Iops: z.number().int().positive().optional(),
          Throughput: z.number().int().positive().optional(),
        }),
        VolumesPerInstance: z.number().int().positive().default(1),
      }),
    ),
  })
  .optional();
const roleSchema = z.enum(['MASTER', 'CORE', 'TASK']);

/** The configuration an EMR recommendation holds (what `emrConfigurationOf` writes), read back. */
export const emrConfigurationSchema = z.object({
  Instances: z.union([
    z.object({
      InstanceGroups: z.array(
        z.object({
          InstanceRole: roleSchema,
          InstanceType: z.string(),
          InstanceCount: z.number().int().min(0),
          Market: z.enum(['ON_DEMAND', 'SPOT']).default('ON_DEMAND'),
          EbsConfiguration: ebsSchema,
        }),
      ),
    }),
    z.object({
      InstanceFleets: z.array(
        z.object({
          InstanceFleetType: roleSchema,
          TargetOnDemandCapacity: z.number().int().min(0).default(0),
          TargetSpotCapacity: z.number().int().min(0).default(0),
          InstanceTypeConfigs: z
            .array(z.object({ InstanceType: z.string(), EbsConfiguration: ebsSchema }))
            .min(1),
          LaunchSpecifications: z
            .object({ SpotSpecification: z.object({ TimeoutAction: z.string().optional() }).optional() })
            .optional(),
        }),
      ),
    }),
  ]),
  ManagedScalingPolicy: z.object({}).passthrough().optional(),
});

function volumesOf(ebs: z.infer<typeof ebsSchema>): EmrVolume[] {
  return (ebs?.EbsBlockDeviceConfigs ?? []).flatMap((config) =>
    Array.from({ length: config.VolumesPerInstance }, () => ({
      volumeType: config.VolumeSpecification.VolumeType,
      sizeGb: config.VolumeSpecification.SizeInGB,
      ...(config.VolumeSpecification.Iops ? { iops: config.VolumeSpecification.Iops } : {}),
      ...(config.VolumeSpecification.Throughput
        ? { throughputMibps: config.VolumeSpecification.Throughput }
        : {}),
    })),
  );
}

function notEmr(detail: string): never {
  throw new ValidationError(
    'NOT_AN_EMR_RECOMMENDATION',
    `the recommendation is not an EMR cluster configuration (${detail})`,
  );
}

/** The choice a stored EMR recommendation describes: what the Terraform writer takes. */
export function choiceOfConfiguration(configuration: unknown, longRunning: boolean): EmrChoice {
  const parsed = emrConfigurationSchema.safeParse(configuration);
  if (!parsed.success) notEmr(parsed.error.issues[0]?.path.join('.') ?? 'Instances');
  const { Instances: instances, ManagedScalingPolicy: scaling } = parsed.data;
  const common = { rootVolumeGb: null, longRunning, managedScaling: scaling !== undefined };
  if ('InstanceGroups' in instances) {
    const role = (name: 'MASTER' | 'CORE' | 'TASK') =>
      instances.InstanceGroups.find((group) => group.InstanceRole === name);
    const [primary, core, task] = [role('MASTER'), role('CORE'), role('TASK')];
    if (!primary || !core) notEmr('no primary or core instance group');
    return {
      ...common,
      collection: 'instance-groups',
      primaryType: primary.InstanceType,
      workerType: core.InstanceType,
      core: core.InstanceCount,
      task: task?.InstanceCount ?? 0,
      taskMarket: task?.Market === 'SPOT' ? 'spot' : 'on-demand',
      volumes: volumesOf(core.EbsConfiguration),
    };
  }
  const role = (name: 'MASTER' | 'CORE' | 'TASK') =>
    instances.InstanceFleets.find((fleet) => fleet.InstanceFleetType === name);
  const [primary, core, task] = [role('MASTER'), role('CORE'), role('TASK')];
  if (!primary?.InstanceTypeConfigs[0] || !core?.InstanceTypeConfigs[0])
    notEmr('no primary or core instance fleet');
  const spot = (task?.TargetSpotCapacity ?? 0) > 0;
  return {
    ...common,
    collection: 'instance-fleets',
    primaryType: primary.InstanceTypeConfigs[0].InstanceType,
    workerType: core.InstanceTypeConfigs[0].InstanceType,
    core: core.TargetOnDemandCapacity + core.TargetSpotCapacity,
    task: (task?.TargetOnDemandCapacity ?? 0) + (task?.TargetSpotCapacity ?? 0),
    taskMarket: !spot
      ? 'on-demand'
      : task?.LaunchSpecifications?.SpotSpecification?.TimeoutAction === 'SWITCH_TO_ON_DEMAND'
        ? 'spot-with-fallback'
        : 'spot',
    volumes: volumesOf(core.InstanceTypeConfigs[0].EbsConfiguration),
  };
}

/**
 * An EMR recommendation as the RunJobFlow JSON the next cluster is launched with (`Instances`, and
 * `ManagedScalingPolicy` when it scales), or as Terraform for `aws_emr_cluster`.
 */
export function createEmrExportService(deps: {
  store: Pick<EmrRepository, 'workloadOfProject'>;
  catalog: PriceCatalog;
  region(workspaceId: string | null): Promise<string>;
}): ExportEmrRecommendation {
  return async function exportEmrRecommendation(project, rec, format) {
    const workload = await deps.store.workloadOfProject(project.id);
    const choice = choiceOfConfiguration(rec.configuration, Boolean(workload?.clusterId));
    // What is exported is what the next cluster is launched with: its RunJobFlow is checked as EMR would.
    // The instance types were checked against ListSupportedInstanceTypes when the candidate was chosen.
    assertEmrAccepted(
      [launchRequestOf(workload?.key ?? project.name, rec.configuration ?? {})],
      {},
      `the export of recommendation ${rec.id}`,
    );
    if (format === 'json')
      return `${JSON.stringify({ project: project.id, recommendation: rec.id, run_job_flow: rec.configuration }, null, 2)}\n`;
    const region = await deps.region(project.workspaceId);
    const prediction = rec.prediction;
    return exportEmrTerraform({
      resourceName: terraformResourceName(workload?.key ?? project.name),
      choice,
      onDemandUsdPerHour: (instanceType) =>
        deps.catalog.onDemandPrice('aws', region, instanceType).usdPerHour,
      header: [
        `Setpoint recommendation ${rec.id} for project "${project.name}" (${project.id})`,
        ...(prediction ? [predictionLine(prediction)] : []),
        'Merge the instance groups (or fleets) and the lifecycle block into your aws_emr_cluster resource.',
      ],
    });
  };
}
