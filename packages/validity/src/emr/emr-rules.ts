import { isObject, type JsonObject, numberOf } from '../json-fields.js';
import type { Finding, ValidityRule } from '../rule.js';
import { parameterFindings, serviceConstraintFindings } from '../service-model/parameter-validation.js';
import type { ServiceModel } from '../service-model/service-shape.js';
import model from './emr-service-model.json' with { type: 'json' };

/** The EMR operations Setpoint writes with. */
export type EmrOperation =
  | 'RunJobFlow'
  | 'ModifyInstanceGroups'
  | 'ModifyInstanceFleet'
  | 'PutManagedScalingPolicy';

/** One EMR request: the operation and its input, as the AWS SDK's command takes it. */
export interface EmrRequest {
  operation: EmrOperation;
  /** The command's input: an object as the SDK types it, read as JSON. */
  input: object;
}

const inputOf = (request: EmrRequest) => request.input as JsonObject;

/** What the account and cluster a request goes to offer; null: not known, not judged. */
export interface EmrAccountFacts {
  /** `ListSupportedInstanceTypes` for the cluster's release in the region. */
  supportedInstanceTypes?: ReadonlySet<string> | null;
  /** The release and region `supportedInstanceTypes` is for, as messages name them. */
  releaseLabel?: string | null;
  region?: string | null;
  /** The collection type of the cluster a managed-scaling policy is put on. */
  collectionType?: 'INSTANCE_GROUP' | 'INSTANCE_FLEET' | null;
}

type EmrRule = ValidityRule<EmrRequest, EmrAccountFacts>;

/** The EMR service model (botocore's `service-2.json`, the shapes Setpoint's requests reach). */
export const emrServiceModel = model as ServiceModel;
const modelSource = `the EMR service model, ${emrServiceModel.source}`;

const inputShape = (operation: EmrOperation) => emrServiceModel.operations[operation] as string;

const parameters: EmrRule = {
  name: 'parameters',
  requirement:
    "Every member is one the request shape has, of its type, required members are present, and values meet the model's minimums (what an AWS SDK checks before sending).",
  source: `${modelSource}, checked as botocore's ParamValidator checks it (required, unknown members, types, min)`,
  refusedAt: 'request',
  check: ({ operation, input }) => parameterFindings(emrServiceModel, inputShape(operation), input),
};

const constraints: EmrRule = {
  name: 'model-constraints',
  requirement: "Values meet the model's enums, maximums and patterns (what the service checks on receipt).",
  source: `${modelSource} (enum, max, pattern); EMR answers ValidationException "1 validation error detected: …"`,
  refusedAt: 'request',
  check: ({ operation, input }) => serviceConstraintFindings(emrServiceModel, inputShape(operation), input),
};

const list = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isObject) : []);
const instancesOf = (request: EmrRequest): JsonObject | null =>
  request.operation === 'RunJobFlow' && isObject(inputOf(request).Instances)
    ? (inputOf(request).Instances as JsonObject)
    : null;

const groupsOrFleets: EmrRule = {
  name: 'groups-or-fleets',
  requirement: '`Instances` has either `InstanceGroups` or `InstanceFleets`, not both.',
  source:
    'EMR API, JobFlowInstancesConfig: "A valid JobFlowInstancesConfig must contain either InstanceGroups or InstanceFleets. They cannot be used together."',
  refusedAt: 'request',
  check(request) {
    const instances = instancesOf(request);
    if (!instances) return [];
    const groups = instances.InstanceGroups !== undefined;
    const fleets = instances.InstanceFleets !== undefined;
    if (groups && fleets)
      return [{ field: 'Instances', message: 'Specify either InstanceGroups or InstanceFleets, not both.' }];
    if (!groups && !fleets && instances.MasterInstanceType === undefined)
      return [
        {
          field: 'Instances',
          message: 'Instances needs InstanceGroups, InstanceFleets or MasterInstanceType.',
        },
      ];
    return [];
  },
};

const roles: EmrRule = {
  name: 'node-roles',
  requirement:
    'A cluster has exactly one primary (MASTER) instance group or fleet of 1 instance (3 with multiple primary nodes), at most one core group or fleet and at most one task fleet.',
  source:
    'Amazon EMR Management Guide, "Create a cluster with instance fleets or uniform instance groups" (one primary, one core, up to 48 task instance groups or one task fleet) and "Plan and configure primary nodes" (1, or 3 for high availability)',
  refusedAt: 'request',
  check(request) {
    const instances = instancesOf(request);
    if (!instances) return [];
    const findings: Finding[] = [];
    const groups = list(instances.InstanceGroups);
    const fleets = list(instances.InstanceFleets);
    const entries = groups.length > 0 ? groups : fleets;
    if (entries.length === 0) return [];
    const field = groups.length > 0 ? 'InstanceGroups' : 'InstanceFleets';
    const roleOf = (entry: JsonObject) => (groups.length > 0 ? entry.InstanceRole : entry.InstanceFleetType);
    const count = (role: string) => entries.filter((entry) => roleOf(entry) === role).length;
    if (count('MASTER') !== 1)
      findings.push({
        field: `Instances.${field}`,
        message: 'A cluster needs exactly one MASTER instance group or fleet.',
      });
    if (count('CORE') > 1)
      findings.push({
        field: `Instances.${field}`,
        message: 'A cluster has at most one CORE instance group or fleet.',
      });
    if (fleets.length > 0 && count('TASK') > 1)
      findings.push({
        field: 'Instances.InstanceFleets',
        message: 'A cluster has at most one TASK instance fleet.',
      });
    groups.forEach((group, index) => {
      if (group.InstanceRole !== 'MASTER') return;
      const instances = numberOf(group.InstanceCount);
      if (instances !== 1 && instances !== 3)
        findings.push({
          field: `Instances.InstanceGroups[${index}].InstanceCount`,
          message: 'The MASTER instance group has 1 or 3 instances.',
        });
    });
    return findings;
  },
};

const fleetCapacity: EmrRule = {
  name: 'fleet-capacity',
  requirement:
    'A primary fleet targets exactly one instance, on demand or on spot (not both); a core fleet targets at least one unit; a fleet lists 1 to 5 instance types (30 with an allocation strategy), of weight 1 in the primary fleet and at least 1 in the others.',
  source:
    'EMR API, InstanceFleetConfig.TargetOnDemandCapacity: "At least one of TargetSpotCapacity and TargetOnDemandCapacity should be greater than 0. For a master instance fleet, only one of TargetSpotCapacity and TargetOnDemandCapacity can be specified, and its value must be 1."; InstanceTypeConfig: "a maximum of 30 instance type configurations … Without an allocation strategy, you may specify a maximum of five"; WeightedCapacity: "This value is 1 for a master instance fleet, and must be 1 or greater for core and task instance fleets"',
  refusedAt: 'request',
  check(request) {
    const fleets = list(instancesOf(request)?.InstanceFleets);
    const findings: Finding[] = [];
    fleets.forEach((fleet, index) => {
      const field = `Instances.InstanceFleets[${index}]`;
      const onDemand =
        fleet.TargetOnDemandCapacity === undefined ? 0 : numberOf(fleet.TargetOnDemandCapacity);
      const spot = fleet.TargetSpotCapacity === undefined ? 0 : numberOf(fleet.TargetSpotCapacity);
      const types = list(fleet.InstanceTypeConfigs);
      if (fleet.InstanceFleetType === 'MASTER') {
        if (!((onDemand === 1 && spot === 0) || (onDemand === 0 && spot === 1)))
          findings.push({
            field,
            message:
              'For a master instance fleet, only one of TargetSpotCapacity and TargetOnDemandCapacity can be specified, and its value must be 1.',
          });
        types.forEach((type, typeIndex) => {
          if (type.WeightedCapacity !== undefined && numberOf(type.WeightedCapacity) !== 1)
            findings.push({
              field: `${field}.InstanceTypeConfigs[${typeIndex}].WeightedCapacity`,
              message: 'WeightedCapacity is 1 for a master instance fleet.',
            });
        });
      }
      if (fleet.InstanceFleetType !== 'MASTER')
        types.forEach((type, typeIndex) => {
          if (type.WeightedCapacity !== undefined && !(numberOf(type.WeightedCapacity) >= 1))
            findings.push({
              field: `${field}.InstanceTypeConfigs[${typeIndex}].WeightedCapacity`,
              message: 'WeightedCapacity must be 1 or greater for core and task instance fleets.',
            });
        });
      if (types.length === 0)
        findings.push({
          field: `${field}.InstanceTypeConfigs`,
          message: 'An instance fleet needs at least one instance type configuration.',
        });
      if (fleet.InstanceFleetType === 'CORE' && !(onDemand > 0 || spot > 0))
        findings.push({
          field,
          message: 'At least one of TargetSpotCapacity and TargetOnDemandCapacity should be greater than 0.',
        });
      const launch = isObject(fleet.LaunchSpecifications) ? fleet.LaunchSpecifications : {};
      const strategy =
        (isObject(launch.SpotSpecification) && launch.SpotSpecification.AllocationStrategy !== undefined) ||
        (isObject(launch.OnDemandSpecification) &&
          launch.OnDemandSpecification.AllocationStrategy !== undefined);
      const most = strategy ? 30 : 5;
      if (types.length > most)
        findings.push({
          field: `${field}.InstanceTypeConfigs`,
          message: `An instance fleet has at most ${most} instance type configurations${strategy ? '' : ' without an allocation strategy'}.`,
        });
    });
    return findings;
  },
};

const instanceCounts: EmrRule = {
  name: 'instance-counts',
  requirement: "An instance group's `InstanceCount` (in RunJobFlow and ModifyInstanceGroups) is 0 or more.",
  source:
    'EMR API, InstanceGroupConfig.InstanceCount and InstanceGroupModifyConfig.InstanceCount ("Target number of instances for the instance group")',
  refusedAt: 'request',
  check(request) {
    const groups =
      request.operation === 'ModifyInstanceGroups'
        ? list(inputOf(request).InstanceGroups).map((group, index) => ({
            group,
            field: `InstanceGroups[${index}]`,
          }))
        : list(instancesOf(request)?.InstanceGroups).map((group, index) => ({
            group,
            field: `Instances.InstanceGroups[${index}]`,
          }));
    return groups
      .filter(({ group }) => group.InstanceCount !== undefined && !(numberOf(group.InstanceCount) >= 0))
      .map(({ group, field }) => ({
        field: `${field}.InstanceCount`,
        message: `InstanceCount ${String(group.InstanceCount)} must be 0 or more.`,
      }));
  },
};

/** Every `VolumeSpecification` of a RunJobFlow request, with where it sits. */
function volumesOf(request: EmrRequest): { field: string; volume: JsonObject; perInstance: unknown }[] {
  const found: { field: string; volume: JsonObject; perInstance: unknown }[] = [];
  const collect = (ebs: unknown, field: string) => {
    if (!isObject(ebs)) return;
    list(ebs.EbsBlockDeviceConfigs).forEach((config, index) => {
      if (isObject(config.VolumeSpecification))
        found.push({
          field: `${field}.EbsBlockDeviceConfigs[${index}].VolumeSpecification`,
          volume: config.VolumeSpecification,
          perInstance: config.VolumesPerInstance,
        });
    });
  };
  const instances = instancesOf(request);
  list(instances?.InstanceGroups).forEach((group, index) => {
    collect(group.EbsConfiguration, `Instances.InstanceGroups[${index}].EbsConfiguration`);
  });
  list(instances?.InstanceFleets).forEach((fleet, index) => {
    list(fleet.InstanceTypeConfigs).forEach((type, typeIndex) => {
      collect(
        type.EbsConfiguration,
        `Instances.InstanceFleets[${index}].InstanceTypeConfigs[${typeIndex}].EbsConfiguration`,
      );
    });
  });
  return found;
}

const volumeTypes = ['gp3', 'gp2', 'io1', 'st1', 'sc1', 'standard'];

const ebsVolumes: EmrRule = {
  name: 'ebs-volumes',
  requirement:
    'EBS volumes are gp3, gp2, io1, st1, sc1 or standard, of 1–1024 GiB, at least one per instance where given; `Throughput` (125–1000 MiB/s) only on gp3.',
  source:
    'EMR API, VolumeSpecification: VolumeType "Volume types supported are gp3, gp2, io1, st1, sc1, and standard"; SizeInGB "This can be a number from 1 - 1024"; Throughput "can be a number from 125 - 1000 and is valid only for gp3 volumes"',
  refusedAt: 'request',
  check(request) {
    const findings: Finding[] = [];
    for (const { field, volume, perInstance } of volumesOf(request)) {
      if (perInstance !== undefined && !(numberOf(perInstance) >= 1))
        findings.push({
          field: field.replace(/\.VolumeSpecification$/, '.VolumesPerInstance'),
          message: `VolumesPerInstance ${String(perInstance)} must be at least 1.`,
        });
      const type = volume.VolumeType;
      if (typeof type === 'string' && !volumeTypes.includes(type))
        findings.push({
          field: `${field}.VolumeType`,
          message: `The volume type ${type} is not supported: use one of ${volumeTypes.join(', ')}.`,
        });
      const size = numberOf(volume.SizeInGB);
      if (volume.SizeInGB !== undefined && !(Number.isInteger(size) && size >= 1 && size <= 1024))
        findings.push({
          field: `${field}.SizeInGB`,
          message: `The volume size ${String(volume.SizeInGB)} GiB is outside 1 - 1024.`,
        });
      if (volume.Throughput !== undefined) {
        const throughput = numberOf(volume.Throughput);
        if (type !== 'gp3')
          findings.push({
            field: `${field}.Throughput`,
            message: 'Throughput is valid only for gp3 volumes.',
          });
        else if (!(throughput >= 125 && throughput <= 1000))
          findings.push({
            field: `${field}.Throughput`,
            message: `The throughput ${String(volume.Throughput)} MiB/s is outside 125 - 1000.`,
          });
      }
    }
    return findings;
  },
};

const spotTimeout: EmrRule = {
  name: 'spot-timeout',
  requirement: "A fleet's spot provisioning timeout is 5 to 1440 minutes.",
  source:
    'EMR API, SpotProvisioningSpecification.TimeoutDurationMinutes: "Minimum value is 5 and maximum value is 1440"',
  refusedAt: 'request',
  check(request) {
    const findings: Finding[] = [];
    list(instancesOf(request)?.InstanceFleets).forEach((fleet, index) => {
      const launch = isObject(fleet.LaunchSpecifications) ? fleet.LaunchSpecifications : {};
      const spot = isObject(launch.SpotSpecification) ? launch.SpotSpecification : null;
      if (!spot || spot.TimeoutDurationMinutes === undefined) return;
      const minutes = numberOf(spot.TimeoutDurationMinutes);
      if (!(minutes >= 5 && minutes <= 1440))
        findings.push({
          field: `Instances.InstanceFleets[${index}].LaunchSpecifications.SpotSpecification.TimeoutDurationMinutes`,
          message: `The spot provisioning timeout ${String(spot.TimeoutDurationMinutes)} is outside 5 - 1440 minutes.`,
        });
    });
    return findings;
  },
};

/** The managed-scaling policy a request carries (RunJobFlow's or PutManagedScalingPolicy's). */
function scalingPolicyOf(request: EmrRequest): JsonObject | null {
  if (request.operation !== 'RunJobFlow' && request.operation !== 'PutManagedScalingPolicy') return null;
  const policy = inputOf(request).ManagedScalingPolicy;
  return isObject(policy) ? policy : null;
}

const performanceIndexes = [1, 25, 50, 75, 100];

const computeLimits: EmrRule = {
  name: 'compute-limits',
  requirement:
    'Managed scaling limits: the maximum not below the minimum, the on-demand and core maxima not above the maximum, units that fit the cluster (InstanceFleetUnits for fleets; Instances or VCPU for groups), and a utilization performance index of 1, 25, 50, 75 or 100.',
  source:
    'EMR API, ComputeLimits ("The managed scaling activity of a cluster can not be above or below these limits"; MaximumOnDemandCapacityUnits and MaximumCoreCapacityUnits split the maximum) and ManagedScalingPolicy.UtilizationPerformanceIndex ("Possible values are 1, 25, 50, 75, and 100"); Amazon EMR Management Guide, "Using managed scaling" (unit types per collection)',
  refusedAt: 'request',
  check(request, facts) {
    const policy = scalingPolicyOf(request);
    if (!policy) return [];
    const findings: Finding[] = [];
    const field = 'ManagedScalingPolicy';
    const index = policy.UtilizationPerformanceIndex;
    if (index !== undefined && !performanceIndexes.includes(numberOf(index)))
      findings.push({
        field: `${field}.UtilizationPerformanceIndex`,
        message: `UtilizationPerformanceIndex ${String(index)} is not one of ${performanceIndexes.join(', ')}.`,
      });
    const limits = isObject(policy.ComputeLimits) ? policy.ComputeLimits : null;
    if (!limits) return findings;
    const min = numberOf(limits.MinimumCapacityUnits);
    const max = numberOf(limits.MaximumCapacityUnits);
    const at = (name: string) => `${field}.ComputeLimits.${name}`;
    if (max < min)
      findings.push({
        field: at('MaximumCapacityUnits'),
        message: 'MinimumCapacityUnits must not exceed MaximumCapacityUnits.',
      });
    for (const name of ['MaximumOnDemandCapacityUnits', 'MaximumCoreCapacityUnits']) {
      if (limits[name] === undefined) continue;
      if (numberOf(limits[name]) > max)
        findings.push({ field: at(name), message: `${name} must not exceed MaximumCapacityUnits.` });
    }
    const instances = instancesOf(request);
    const collection =
      facts.collectionType ??
      (instances?.InstanceFleets !== undefined ? 'INSTANCE_FLEET' : instances ? 'INSTANCE_GROUP' : null);
    const unit = limits.UnitType;
    if (collection === 'INSTANCE_FLEET' && unit !== 'InstanceFleetUnits' && unit !== 'VCPU')
      findings.push({
        field: at('UnitType'),
        message: `UnitType ${String(unit)} does not apply to an INSTANCE_FLEET cluster.`,
      });
    if (collection === 'INSTANCE_GROUP' && unit === 'InstanceFleetUnits')
      findings.push({
        field: at('UnitType'),
        message: 'UnitType InstanceFleetUnits does not apply to an INSTANCE_GROUP cluster.',
      });
    return findings;
  },
};

/** Every instance type a request launches, with where it is named. */
function instanceTypesOf(request: EmrRequest): { field: string; type: string }[] {
  const found: { field: string; type: string }[] = [];
  const add = (type: unknown, field: string) => {
    if (typeof type === 'string') found.push({ field, type });
  };
  const instances = instancesOf(request);
  if (instances) {
    add(instances.MasterInstanceType, 'Instances.MasterInstanceType');
    add(instances.SlaveInstanceType, 'Instances.SlaveInstanceType');
    list(instances.InstanceGroups).forEach((group, index) => {
      add(group.InstanceType, `Instances.InstanceGroups[${index}].InstanceType`);
    });
    list(instances.InstanceFleets).forEach((fleet, index) => {
      list(fleet.InstanceTypeConfigs).forEach((type, typeIndex) => {
        add(
          type.InstanceType,
          `Instances.InstanceFleets[${index}].InstanceTypeConfigs[${typeIndex}].InstanceType`,
        );
      });
    });
  }
  const fleet = inputOf(request).InstanceFleet;
  if (request.operation === 'ModifyInstanceFleet' && isObject(fleet))
    list(fleet.InstanceTypeConfigs).forEach((type, index) => {
      add(type.InstanceType, `InstanceFleet.InstanceTypeConfigs[${index}].InstanceType`);
    });
  return found;
}

const instanceTypeSupported: EmrRule = {
  name: 'instance-type-supported',
  requirement:
    "Each instance type is one the region supports for the cluster's release (`ListSupportedInstanceTypes`).",
  source:
    'EMR API, ListSupportedInstanceTypes ("A list of the instance types that Amazon EMR supports. You can filter the list by Amazon Web Services Region and Amazon EMR release.")',
  refusedAt: 'request',
  check(request, facts) {
    const supported = facts.supportedInstanceTypes;
    if (!supported) return [];
    return instanceTypesOf(request)
      .filter(({ type }) => !supported.has(type))
      .map(({ field, type }) => ({
        field,
        message: `The instance type ${type} is not supported by ${facts.releaseLabel ?? 'the release'} in ${facts.region ?? 'the region'} (ListSupportedInstanceTypes).`,
      }));
  },
};

/** Every EMR rule, in the order violations are reported: the client's checks first, then the service's. */
export const emrRules: readonly EmrRule[] = [
  parameters,
  constraints,
  groupsOrFleets,
  roles,
  instanceCounts,
  fleetCapacity,
  ebsVolumes,
  spotTimeout,
  computeLimits,
  instanceTypeSupported,
];
