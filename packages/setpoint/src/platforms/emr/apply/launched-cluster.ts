import type { EmrClusterShape, EmrComputeLimits, EmrRole } from '../cluster-shape/emr-cluster-shape.js';
import { emrConfigurationSchema } from '../export/emr-export-service.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';

/** A cluster its launcher started, as the EMR writer's history records it: no resize, and what it launched. */
export type LaunchRecord = {
  clusterId: string;
  actions: [];
  /** What it launched in one line: "1 × m5.xlarge primary, 2 × r5.2xlarge core, 4 × r5.2xlarge spot task". */
  launched: string;
  shape: EmrClusterShape;
};

const roleNames: Record<EmrRole, string> = { MASTER: 'primary', CORE: 'core', TASK: 'task' };

/**
 * Each role of a shape in a person's words ("2 × r5.2xlarge", "4 × c5.xlarge spot", a fleet's "1 on-demand
 * + 4 spot units of r5.2xlarge/r5a.2xlarge"), and the managed-scaling limits; a role with nothing in it is left out.
 */
function partsOf(shape: EmrClusterShape): Map<string, string> {
  const parts = new Map<string, string>();
  for (const role of ['MASTER', 'CORE', 'TASK'] as const) {
    const sizes =
      shape.kind === 'instance-groups'
        ? shape.groups
            .filter((group) => group.role === role && group.count > 0)
            .map((group) => `${group.count} × ${group.instanceType}${group.market === 'SPOT' ? ' spot' : ''}`)
        : shape.fleets
            .filter((fleet) => fleet.role === role && fleet.targetOnDemand + fleet.targetSpot > 0)
            .map((fleet) => {
              const units = [
                ...(fleet.targetOnDemand > 0 ? [`${fleet.targetOnDemand} on-demand`] : []),
                ...(fleet.targetSpot > 0 ? [`${fleet.targetSpot} spot`] : []),
              ].join(' + ');
              return `${units} units of ${fleet.types.map((type) => type.instanceType).join('/')}`;
            });
    if (sizes.length > 0) parts.set(roleNames[role], sizes.join(' + '));
  }
  const limits = shape.managedScaling;
  if (limits) parts.set('managed scaling', `${limits.minimum}–${limits.maximum} ${limits.unitType}`);
  return parts;
}

const inLine = (parts: Map<string, string>) =>
  [...parts]
    .map(([role, size]) => (role === 'managed scaling' ? `${role} ${size}` : `${size} ${role}`))
    .join(', ');

/** The launched cluster of a collected step, as the history records it. */
export function launchRecordOf(report: EmrRunReport): LaunchRecord {
  return {
    clusterId: report.cluster.id,
    actions: [],
    launched: inLine(partsOf(report.shape)),
    shape: report.shape,
  };
}

/**
 * A recommendation's RunJobFlow configuration as a cluster shape (instance types, counts, markets and
 * managed-scaling limits; volumes are left out: EMR adds default volumes a launch reports and a
 * recommendation does not name). Null when it is not an EMR configuration.
 */
function shapeOfConfiguration(configuration: unknown): EmrClusterShape | null {
  const parsed = emrConfigurationSchema.safeParse(configuration);
  if (!parsed.success) return null;
  const { Instances: instances, ManagedScalingPolicy: scaling } = parsed.data;
  const limits = (scaling as { ComputeLimits?: Record<string, unknown> } | undefined)?.ComputeLimits;
  const managedScaling: EmrComputeLimits | null = limits
    ? {
        unitType: limits.UnitType as EmrComputeLimits['unitType'],
        minimum: Number(limits.MinimumCapacityUnits),
        maximum: Number(limits.MaximumCapacityUnits),
      }
    : null;
  if ('InstanceGroups' in instances)
    return {
      kind: 'instance-groups',
      groups: instances.InstanceGroups.map((group) => ({
        role: group.InstanceRole,
        instanceType: group.InstanceType,
        count: group.InstanceCount,
        market: group.Market,
        volumes: [],
      })),
      managedScaling,
    };
  return {
    kind: 'instance-fleets',
    fleets: instances.InstanceFleets.map((fleet) => ({
      role: fleet.InstanceFleetType,
      targetOnDemand: fleet.TargetOnDemandCapacity,
      targetSpot: fleet.TargetSpotCapacity,
      types: fleet.InstanceTypeConfigs.map((type) => ({
        instanceType: type.InstanceType,
        weightedCapacity: 1,
        volumes: [],
      })),
    })),
    managedScaling,
  };
}

/**
 * How a launched cluster differs from the recommendation it was launched with, one line per role or setting
 * ("task: launched 6 × c5.xlarge spot, recommended 4 × c5.xlarge spot"); empty when it is as recommended.
 */
export function launchDifferences(report: EmrRunReport, configuration: unknown): string[] {
  const recommended = shapeOfConfiguration(configuration);
  if (!recommended) return ['the recommendation is not an EMR cluster configuration'];
  const launched = partsOf(report.shape);
  const wanted = partsOf(recommended);
  if (report.shape.kind !== recommended.kind)
    return [`launched ${report.shape.kind}, recommended ${recommended.kind}`];
  return [...new Set([...wanted.keys(), ...launched.keys()])].flatMap((part) => {
    const was = launched.get(part) ?? 'none';
    const want = wanted.get(part) ?? 'none';
    return was === want ? [] : [`${part}: launched ${was}, recommended ${want}`];
  });
}
