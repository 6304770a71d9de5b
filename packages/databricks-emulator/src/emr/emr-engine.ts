import { gzipSync } from 'node:zlib';
import { createRandom, deriveSeed, type Random } from '@setpoint/foundation/random';
import type { Availability, EbsVolumeType, SimClusterSpec } from '../physics/cluster-spec.js';
import { renderEventLog, yarnShutdownMs } from '../physics/event-log-writer.js';
import { findNodeType, type NodeType, nodeTypes } from '../physics/node-types.js';
import { simulateCluster } from '../physics/simulate-cluster.js';
import type { WorkloadRegistry } from '../workloads/workload-registry.js';
import {
  type ClusterState,
  classificationProperties,
  type EbsVolume,
  type FleetInstanceType,
  type InstanceFleetState,
  type InstanceGroupState,
  type InstanceState,
  liveInstances,
  type Market,
  type StepState,
  stepStateAt,
} from './emr-cluster.js';
import { emrError } from './emr-errors.js';
import type {
  ComputeLimits,
  EbsConfiguration,
  InstanceFleetConfig,
  InstanceGroupConfig,
  InstanceRole,
  RunJobFlowRequest,
  StepConfig,
} from './emr-requests.js';

/** EC2 provisioning (STARTING), then bootstrap actions and the applications (BOOTSTRAPPING). */
export const provisioningMs = 360_000;
export const bootstrappingMs = 150_000;
/** A resize's new instances join after provisioning and bootstrap. */
export const resizeJoinMs = provisioningMs + bootstrappingMs;
export const terminatingMs = 60_000;
/** From a step's start to its application's start (`spark-submit` asking YARN for the AM). */
const submitMs = 12_000;
/** From the application's end to the step's end (the step runner noticing). */
const stepWrapUpMs = 4_000;

const sparkVersionByRelease: Array<[RegExp, string]> = [
  [/^emr-7\.(?:[5-9]|1\d)\./, '3.5.2'],
  [/^emr-7\./, '3.5.0'],
  [/^emr-6\.1[2-5]\./, '3.4.1'],
  [/^emr-6\./, '3.3.0'],
];

export function sparkVersionForRelease(releaseLabel: string): string {
  for (const [pattern, version] of sparkVersionByRelease) if (pattern.test(releaseLabel)) return version;
  return '3.5.0';
}

/** Where the emulator writes files at S3 locations (the same store the Databricks face delivers to). */
export interface EmrLogSink {
  write(path: string, data: Uint8Array, modifiedAtMs: number): void;
  /** Runs `done` once everything written so far has landed. */
  afterWrites(done: () => void): void;
}

export interface EmrEngineDeps {
  /** The emulator's simulated clock. */
  clock: { now(): number };
  workloads: WorkloadRegistry;
  seed: number;
  region: string;
  accountId: string;
  /** Where S3 log locations (LogUri, `spark.eventLog.dir`) are written; absent: nothing is written. */
  s3: EmrLogSink | undefined;
  /**
   * Instance types the emulated region does not offer: left out of `ListSupportedInstanceTypes` and
   * refused by `RunJobFlow`, as a region or release without them would.
   */
  unsupportedInstanceTypes?: readonly string[];
}

function expandVolumes(ebs: EbsConfiguration | undefined): EbsVolume[] {
  const volumes: EbsVolume[] = [];
  for (const device of ebs?.EbsBlockDeviceConfigs ?? []) {
    const spec = device.VolumeSpecification;
    for (let i = 0; i < (device.VolumesPerInstance ?? 1); i += 1)
      volumes.push({
        volumeType: spec.VolumeType,
        sizeGb: spec.SizeInGB,
        iops: spec.Iops,
        throughput: spec.Throughput,
      });
  }
  return volumes;
}

/** EMR's default volumes when none are configured (32 GiB gp2 per instance for most types). */
const defaultVolumes: EbsVolume[] = [
  { volumeType: 'gp2', sizeGb: 32, iops: undefined, throughput: undefined },
];

function requireNodeType(instanceType: string): NodeType {
  const type = findNodeType(instanceType);
  if (type?.cloud !== 'AWS')
    throw emrError(
      'ValidationException',
      `Instance type '${instanceType}' is not supported by the emulator.`,
    );
  return type;
}

/** The ids EMR hands out: `j-`, `ig-`, `if-`, `ci-`, `s-` with 13 upper-case letters and digits. */
class IdSource {
  readonly #random: Random;
  constructor(seed: number) {
    this.#random = createRandom(deriveSeed(seed, 'emr-ids'));
  }
  next(prefix: string, length = 13): string {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let id = '';
    for (let i = 0; i < length; i += 1) id += alphabet[this.#random.int(alphabet.length)];
    return `${prefix}${id}`;
  }
  hex(prefix: string, length: number): string {
    let id = '';
    for (let i = 0; i < length; i += 1) id += '0123456789abcdef'[this.#random.int(16)];
    return `${prefix}${id}`;
  }
}

/**
 * The EMR clusters of the emulated account. State is a function of the simulated clock: each request
 * first catches up (starts the steps whose turn has come, simulating them with the Job Bank physics on
 * the cluster's shape at that moment; ends clusters; writes the logs of finished steps).
 */
export class EmrEngine {
  readonly clusters = new Map<string, ClusterState>();
  readonly #ids: IdSource;
  readonly #runsByWorkload = new Map<string, number>();
  /** Start times of the clusters' YARN resource managers: part of every application id, so never shared. */
  readonly #yarnTimestamps = new Set<number>();
  #ipCounter = 10;

  constructor(private readonly deps: EmrEngineDeps) {
    this.#ids = new IdSource(deps.seed);
  }

  get now(): number {
    return this.deps.clock.now();
  }

  /**
   * Clusters launched at the same simulated instant would otherwise start their resource managers in the
   * same millisecond and name their applications alike (`application_<ms>_0001`); in a shared
   * `spark.eventLog.dir` one would overwrite the other's event log. Real resource managers start apart.
   */
  #uniqueYarnTimestamp(candidate: number): number {
    let timestamp = candidate;
    while (this.#yarnTimestamps.has(timestamp)) timestamp += 1;
    this.#yarnTimestamps.add(timestamp);
    return timestamp;
  }

  cluster(id: string): ClusterState {
    const cluster = this.clusters.get(id);
    if (!cluster) throw emrError('InvalidRequestException', `Cluster id '${id}' is not valid.`);
    return cluster;
  }

  runJobFlow(request: RunJobFlowRequest): ClusterState {
    const now = this.now;
    const id = this.#ids.next('j-');
    const instances = request.Instances;
    const groupsRequested = instances.InstanceGroups ?? [];
    const fleetsRequested = instances.InstanceFleets ?? [];
    const cluster: ClusterState = {
      id,
      name: request.Name,
      arn: `arn:aws:elasticmapreduce:${this.deps.region}:${this.deps.accountId}:cluster/${id}`,
      request,
      releaseLabel: request.ReleaseLabel ?? 'emr-7.2.0',
      logUri: request.LogUri,
      collectionType: fleetsRequested.length > 0 ? 'INSTANCE_FLEET' : 'INSTANCE_GROUP',
      keepAlive: instances.KeepJobFlowAliveWhenNoSteps ?? false,
      terminationProtected: instances.TerminationProtected ?? false,
      tags: (request.Tags ?? []).map((tag) => ({ Key: tag.Key, Value: tag.Value ?? '' })),
      configurations: request.Configurations ?? [],
      createdAtMs: now,
      provisionedAtMs: now + provisioningMs,
      readyAtMs: now + provisioningMs + bootstrappingMs,
      terminatingAtMs: undefined,
      terminatedAtMs: undefined,
      terminationReason: undefined,
      failed: false,
      groups: [],
      fleets: [],
      instances: [],
      steps: [],
      managedScaling: request.ManagedScalingPolicy?.ComputeLimits,
      yarnClusterTimestamp: this.#uniqueYarnTimestamp(now + provisioningMs + 60_000),
      applicationCount: 0,
    };
    if (cluster.collectionType === 'INSTANCE_FLEET') {
      for (const fleet of fleetsRequested) cluster.fleets.push(this.#newFleet(fleet, now));
    } else {
      const groups =
        groupsRequested.length > 0
          ? groupsRequested
          : this.#uniformGroups(instances.MasterInstanceType, instances);
      for (const group of groups) cluster.groups.push(this.#newGroup(group, now));
    }
    for (const group of cluster.groups)
      this.#resizeGroup(cluster, group, group.requestedCount, now, cluster.readyAtMs);
    for (const fleet of cluster.fleets) this.#resizeFleet(cluster, fleet, now, cluster.readyAtMs);
    for (const step of request.Steps ?? []) cluster.steps.push(this.#newStep(step, now));
    this.clusters.set(id, cluster);
    return cluster;
  }

  addSteps(clusterId: string, steps: StepConfig[]): StepState[] {
    const cluster = this.#activeCluster(clusterId);
    const added = steps.map((step) => this.#newStep(step, this.now));
    cluster.steps.push(...added);
    this.catchUp();
    return added;
  }

  modifyInstanceGroup(clusterId: string | undefined, groupId: string, count: number): void {
    const clusters = clusterId ? [this.#activeCluster(clusterId)] : [...this.clusters.values()];
    for (const cluster of clusters) {
      const group = cluster.groups.find((candidate) => candidate.id === groupId);
      if (!group) continue;
      this.#activeCluster(cluster.id);
      if (group.role === 'MASTER')
        throw emrError('InvalidRequestException', 'The master instance group cannot be resized.');
      const now = this.now;
      group.requestedCount = count;
      group.lastResizedAtMs = now;
      this.#resizeGroup(cluster, group, count, now, Math.max(now + resizeJoinMs, cluster.readyAtMs));
      return;
    }
    throw emrError('InvalidRequestException', `Instance group id '${groupId}' is not valid.`);
  }

  modifyInstanceFleet(
    clusterId: string,
    fleetId: string,
    targets: { onDemand?: number | undefined; spot?: number | undefined },
  ): void {
    const cluster = this.#activeCluster(clusterId);
    const fleet = cluster.fleets.find((candidate) => candidate.id === fleetId);
    if (!fleet) throw emrError('InvalidRequestException', `Instance fleet id '${fleetId}' is not valid.`);
    if (fleet.role === 'MASTER')
      throw emrError('InvalidRequestException', 'The master instance fleet cannot be resized.');
    if (targets.onDemand !== undefined) fleet.targetOnDemand = targets.onDemand;
    if (targets.spot !== undefined) fleet.targetSpot = targets.spot;
    const now = this.now;
    this.#resizeFleet(cluster, fleet, now, Math.max(now + resizeJoinMs, cluster.readyAtMs));
  }

  putManagedScaling(clusterId: string, limits: ComputeLimits): void {
    const cluster = this.#activeCluster(clusterId);
    cluster.managedScaling = limits;
  }

  removeManagedScaling(clusterId: string): void {
    this.cluster(clusterId).managedScaling = undefined;
  }

  terminate(clusterId: string): void {
    const cluster = this.cluster(clusterId);
    if (cluster.terminatingAtMs !== undefined) return;
    if (cluster.terminationProtected)
      throw emrError(
        'ValidationException',
        `Could not shut down ${clusterId}: termination protection is on.`,
      );
    const now = this.now;
    this.#endCluster(cluster, now, { code: 'USER_REQUEST', message: 'Terminated by user request' }, false);
  }

  /** Resolves once every log written so far has landed in the store. */
  logsWritten(): Promise<void> {
    const sink = this.deps.s3;
    return sink ? new Promise((resolve) => sink.afterWrites(resolve)) : Promise.resolve();
  }

  /** Brings every cluster up to the simulated present. */
  catchUp(): void {
    const now = this.now;
    for (const cluster of this.clusters.values()) {
      this.#startDueSteps(cluster, now);
      this.#deliverFinishedSteps(cluster, now);
    }
  }

  /**
   * When the cluster will have terminated, its steps run now as `catchUp` would run each once the clock
   * reached its start: a step's outcome depends only on the cluster at that start, fixed at launch unless
   * someone resizes it first. A driver whose clock stands still learns how far to move it. Undefined: the
   * cluster stays up (kept alive with no steps left).
   */
  plannedTerminationOf(clusterId: string): number | undefined {
    const cluster = this.cluster(clusterId);
    this.#startDueSteps(cluster, Number.POSITIVE_INFINITY);
    return cluster.terminatedAtMs;
  }

  #activeCluster(clusterId: string): ClusterState {
    const cluster = this.cluster(clusterId);
    if (cluster.terminatingAtMs !== undefined && cluster.terminatingAtMs <= this.now)
      throw emrError('ValidationException', `Cluster ${clusterId} is terminated or terminating.`);
    return cluster;
  }

  #uniformGroups(
    masterType: string | undefined,
    instances: RunJobFlowRequest['Instances'],
  ): InstanceGroupConfig[] {
    if (!masterType)
      throw emrError(
        'ValidationException',
        'Instances needs InstanceGroups, InstanceFleets or MasterInstanceType.',
      );
    const count = instances.InstanceCount ?? 1;
    const groups: InstanceGroupConfig[] = [
      { InstanceRole: 'MASTER', InstanceType: masterType, InstanceCount: 1 },
    ];
    if (count > 1)
      groups.push({
        InstanceRole: 'CORE',
        InstanceType: instances.SlaveInstanceType ?? masterType,
        InstanceCount: count - 1,
      });
    return groups;
  }

  /** The instance types this region supports for EMR releases (the emulator's AWS node types it offers). */
  supportedInstanceTypes(): NodeType[] {
    const unsupported = new Set(this.deps.unsupportedInstanceTypes ?? []);
    return nodeTypes.filter((type) => type.cloud === 'AWS' && !unsupported.has(type.nodeTypeId));
  }

  #newGroup(config: InstanceGroupConfig, now: number): InstanceGroupState {
    requireNodeType(config.InstanceType);
    const volumes = expandVolumes(config.EbsConfiguration);
    return {
      id: this.#ids.next('ig-'),
      name: config.Name ?? `${config.InstanceRole.toLowerCase()} group`,
      role: config.InstanceRole,
      market: config.Market ?? 'ON_DEMAND',
      bidPrice: config.BidPrice,
      instanceType: config.InstanceType,
      requestedCount: config.InstanceCount,
      volumes: volumes.length > 0 ? volumes : defaultVolumes,
      ebsOptimized: config.EbsConfiguration?.EbsOptimized ?? true,
      configurations: config.Configurations ?? [],
      createdAtMs: now,
      lastResizedAtMs: undefined,
    };
  }

  #newFleet(config: InstanceFleetConfig, now: number): InstanceFleetState {
    const types: FleetInstanceType[] = config.InstanceTypeConfigs.map((type) => {
      requireNodeType(type.InstanceType);
      const volumes = expandVolumes(type.EbsConfiguration);
      return {
        instanceType: type.InstanceType,
        weightedCapacity: type.WeightedCapacity ?? 1,
        bidPrice: type.BidPrice,
        bidPriceAsPercentageOfOnDemandPrice: type.BidPriceAsPercentageOfOnDemandPrice,
        volumes: volumes.length > 0 ? volumes : defaultVolumes,
      };
    });
    const onDemand = config.TargetOnDemandCapacity ?? 0;
    const spot = config.TargetSpotCapacity ?? 0;
    return {
      id: this.#ids.next('if-'),
      name: config.Name ?? `${config.InstanceFleetType.toLowerCase()} fleet`,
      role: config.InstanceFleetType,
      targetOnDemand: onDemand,
      targetSpot: spot,
      types,
      createdAtMs: now,
    };
  }

  #newStep(config: StepConfig, now: number): StepState {
    return {
      id: this.#ids.next('s-'),
      config,
      createdAtMs: now,
      startAtMs: undefined,
      endAtMs: undefined,
      outcome: undefined,
      failureMessage: undefined,
      cancelledAtMs: undefined,
      applicationId: undefined,
      pendingEventLog: undefined,
      logsDelivered: false,
    };
  }

  #newInstance(
    role: InstanceRole,
    owner: { groupId?: string; fleetId?: string },
    instanceType: string,
    market: Market,
    volumes: EbsVolume[],
    createdAtMs: number,
    readyAtMs: number,
  ): InstanceState {
    this.#ipCounter += 1;
    return {
      id: this.#ids.next('ci-'),
      ec2InstanceId: this.#ids.hex('i-', 17),
      role,
      groupId: owner.groupId,
      fleetId: owner.fleetId,
      market,
      instanceType,
      privateIp: `172.31.${Math.floor(this.#ipCounter / 250)}.${this.#ipCounter % 250}`,
      volumes,
      volumeIds: volumes.map(() => this.#ids.hex('vol-', 17)),
      createdAtMs,
      readyAtMs,
      endAtMs: undefined,
    };
  }

  /** Adds instances (joining at `readyAtMs`) or ends the newest ones so the group runs `count`. */
  #resizeGroup(
    cluster: ClusterState,
    group: InstanceGroupState,
    count: number,
    now: number,
    readyAtMs: number,
  ): void {
    const live = liveInstances(cluster, now).filter((instance) => instance.groupId === group.id);
    for (let i = live.length; i < count; i += 1)
      cluster.instances.push(
        this.#newInstance(
          group.role,
          { groupId: group.id },
          group.instanceType,
          group.market,
          group.volumes,
          now,
          readyAtMs,
        ),
      );
    for (const instance of live.slice(count).reverse()) instance.endAtMs = now;
  }

  /**
   * Fills each market's target capacity with the fleet's first instance type (EMR picks by its
   * allocation strategy; the emulator keeps the first listed), ending surplus instances newest first.
   */
  #resizeFleet(cluster: ClusterState, fleet: InstanceFleetState, now: number, readyAtMs: number): void {
    const type = fleet.types[0]!;
    for (const [market, target] of [
      ['ON_DEMAND', fleet.targetOnDemand],
      ['SPOT', fleet.targetSpot],
    ] as const) {
      const live = liveInstances(cluster, now).filter(
        (instance) => instance.fleetId === fleet.id && instance.market === market,
      );
      let capacity = live.reduce((sum, instance) => sum + this.#weightOf(fleet, instance.instanceType), 0);
      while (capacity < target) {
        cluster.instances.push(
          this.#newInstance(
            fleet.role,
            { fleetId: fleet.id },
            type.instanceType,
            market,
            type.volumes,
            now,
            readyAtMs,
          ),
        );
        capacity += type.weightedCapacity;
      }
      for (const instance of [...live].reverse()) {
        const weight = this.#weightOf(fleet, instance.instanceType);
        if (capacity - weight < target) break;
        instance.endAtMs = now;
        capacity -= weight;
      }
    }
  }

  #weightOf(fleet: InstanceFleetState, instanceType: string): number {
    return fleet.types.find((type) => type.instanceType === instanceType)?.weightedCapacity ?? 1;
  }

  #startDueSteps(cluster: ClusterState, now: number): void {
    for (;;) {
      if (cluster.terminatingAtMs !== undefined) return;
      const pending = cluster.steps.find(
        (step) => step.startAtMs === undefined && step.cancelledAtMs === undefined,
      );
      if (!pending) break;
      const previousEnd = Math.max(
        cluster.readyAtMs,
        ...cluster.steps.filter((step) => step.endAtMs !== undefined).map((step) => step.endAtMs as number),
      );
      const startAt = Math.max(previousEnd, pending.createdAtMs);
      if (startAt > now) return;
      this.#runStep(cluster, pending, startAt);
      if (pending.outcome === 'FAILED') {
        const action = pending.config.ActionOnFailure ?? 'TERMINATE_CLUSTER';
        if (action !== 'CONTINUE') {
          for (const step of cluster.steps)
            if (step.startAtMs === undefined && step.cancelledAtMs === undefined)
              step.cancelledAtMs = pending.endAtMs;
        }
        if (action === 'TERMINATE_CLUSTER' || action === 'TERMINATE_JOB_FLOW') {
          this.#endCluster(
            cluster,
            pending.endAtMs as number,
            { code: 'STEP_FAILURE', message: `Shut down as step failed: ${pending.id}` },
            true,
          );
          return;
        }
      }
    }
    if (cluster.keepAlive) return;
    const lastEnd = Math.max(
      cluster.readyAtMs,
      ...cluster.steps.map((step) => step.endAtMs ?? step.cancelledAtMs ?? 0),
    );
    if (lastEnd <= now && cluster.steps.every((step) => stepStateAt(step, lastEnd) !== 'RUNNING'))
      this.#endCluster(cluster, lastEnd, { code: 'ALL_STEPS_COMPLETED', message: 'Steps completed' }, false);
  }

  #endCluster(
    cluster: ClusterState,
    atMs: number,
    reason: { code: string; message: string },
    failed: boolean,
  ): void {
    cluster.terminatingAtMs = atMs;
    cluster.terminatedAtMs = atMs + terminatingMs;
    cluster.terminationReason = reason;
    cluster.failed = failed;
    for (const step of cluster.steps) {
      if (step.startAtMs === undefined && step.cancelledAtMs === undefined) step.cancelledAtMs = atMs;
      else if (step.endAtMs !== undefined && step.endAtMs > atMs) {
        step.endAtMs = atMs;
        step.outcome = 'FAILED';
        step.failureMessage = 'The cluster terminated while the step ran.';
      }
    }
    for (const instance of cluster.instances)
      if (instance.endAtMs === undefined || instance.endAtMs > cluster.terminatedAtMs)
        instance.endAtMs = cluster.terminatedAtMs;
  }

  /** The physics' view of the cluster as a step starts: core (and task) instances are its workers. */
  simSpecAt(cluster: ClusterState, atMs: number): SimClusterSpec {
    const live = liveInstances(cluster, atMs).filter((instance) => instance.readyAtMs <= atMs);
    const master = live.find((instance) => instance.role === 'MASTER') ?? cluster.instances[0]!;
    const workersLive = live.filter((instance) => instance.role !== 'MASTER');
    const core = workersLive.find((instance) => instance.role === 'CORE') ?? workersLive[0] ?? master;
    const workerType = requireNodeType(core.instanceType);
    // Task instances of another type count as the core type's equivalent by cores.
    const workerUnits = workersLive.reduce(
      (sum, instance) => sum + requireNodeType(instance.instanceType).cores / workerType.cores,
      0,
    );
    const workers = Math.max(1, Math.round(workerUnits));
    const onDemandWorkers = workersLive.filter((instance) => instance.market === 'ON_DEMAND').length;
    const availability: Availability =
      onDemandWorkers === workersLive.length
        ? 'ON_DEMAND'
        : onDemandWorkers === 0
          ? 'SPOT'
          : 'SPOT_WITH_FALLBACK';
    const firstVolume = core.volumes[0];
    const ebsType: EbsVolumeType =
      firstVolume?.volumeType === 'st1' ? 'THROUGHPUT_OPTIMIZED_HDD' : 'GENERAL_PURPOSE_SSD';
    return {
      nodeType: workerType,
      driverNodeType: requireNodeType(master.instanceType),
      workers: { kind: 'fixed', count: workers },
      availability,
      firstOnDemand: 1 + onDemandWorkers,
      ebs: { type: ebsType, count: core.volumes.length, sizeGb: firstVolume?.sizeGb ?? 0 },
      photon: false,
      sparkVersion: '15.4.x-scala2.12',
      sparkConf: classificationProperties(cluster.configurations, 'spark-defaults'),
    };
  }

  #runStep(cluster: ClusterState, step: StepState, startAt: number): void {
    step.startAtMs = startAt;
    const args = step.config.HadoopJarStep.Args ?? [];
    const workload = this.deps.workloads.resolveReferences([
      ...[...args].reverse().filter((arg) => /\.(py|jar|scala|sql)$/i.test(arg)),
      step.config.HadoopJarStep.MainClass?.split('.').pop(),
      args[args.indexOf('--class') + 1]?.split('.').pop(),
    ]);
    const runIndex = this.#runsByWorkload.get(workload.name) ?? 0;
    this.#runsByWorkload.set(workload.name, runIndex + 1);
    const spec = this.simSpecAt(cluster, startAt);
    const sim = simulateCluster(spec, [{ workload }], { seed: this.deps.seed, runIndex });
    cluster.applicationCount += 1;
    const applicationId = `application_${cluster.yarnClusterTimestamp}_${String(cluster.applicationCount).padStart(4, '0')}`;
    // The simulation's times are offsets from its cluster request; shift them so the application starts
    // `submitMs` after the step.
    const appStartOffset = sim.clusterReadyMs - 20_000;
    const t0 = startAt + submitMs - appStartOffset;
    step.applicationId = applicationId;
    step.endAtMs = t0 + sim.executionEndMs + yarnShutdownMs + stepWrapUpMs;
    step.outcome = sim.outcome === 'SUCCESS' ? 'COMPLETED' : 'FAILED';
    step.failureMessage = sim.failureMessage;
    const masterIp = liveInstances(cluster, startAt, 'MASTER')[0]?.privateIp ?? '172.31.0.10';
    const lines = renderEventLog(
      sim,
      {
        clusterId: cluster.id,
        clusterName: cluster.name,
        sparkContextId: '0',
        driverIp: masterIp,
        workspaceId: this.deps.accountId,
        runId: step.id,
        region: this.deps.region,
      },
      t0,
      {
        kind: 'yarn',
        appName: step.config.Name,
        appId: applicationId,
        sparkVersion: sparkVersionForRelease(cluster.releaseLabel),
      },
    );
    step.pendingEventLog = `${lines.map((entry) => entry.line).join('\n')}\n`;
  }

  /** Where Spark writes event logs on this cluster (`spark-defaults` `spark.eventLog.dir`; EMR's default is HDFS). */
  eventLogDir(cluster: ClusterState): string {
    return (
      classificationProperties(cluster.configurations, 'spark-defaults')['spark.eventLog.dir'] ??
      'hdfs:///var/log/spark/apps'
    );
  }

  #deliverFinishedSteps(cluster: ClusterState, now: number): void {
    for (const step of cluster.steps) {
      if (step.logsDelivered || step.endAtMs === undefined || step.endAtMs > now) continue;
      step.logsDelivered = true;
      const eventLog = step.pendingEventLog;
      step.pendingEventLog = undefined;
      const sink = this.deps.s3;
      if (!sink) continue;
      const eventLogDir = this.eventLogDir(cluster).replace(/\/+$/, '');
      if (eventLog && step.applicationId && /^s3a?:\/\//.test(eventLogDir))
        sink.write(
          `${eventLogDir.replace(/^s3a:/, 's3:')}/${step.applicationId}`,
          Buffer.from(eventLog),
          step.endAtMs,
        );
      if (cluster.logUri?.startsWith('s3://')) {
        const base = `${cluster.logUri.replace(/^s3n:/, 's3:').replace(/\/+$/, '')}/${cluster.id}/steps/${step.id}`;
        sink.write(`${base}/stderr.gz`, gzipSync(stepStderr(step)), step.endAtMs);
        sink.write(`${base}/controller.gz`, gzipSync(stepController(step)), step.endAtMs);
      }
    }
  }
}

function log4jTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(2, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 19)}`;
}

/** What `spark-submit` prints on YARN: the line that ties the step to its application. */
function stepStderr(step: StepState): string {
  const at = (step.startAtMs ?? 0) + 8_000;
  return [
    `${log4jTime(at)} INFO DefaultNoHARMFailoverProxyProvider: Connecting to ResourceManager`,
    `${log4jTime(at)} INFO Client: Submitting application ${step.applicationId} to ResourceManager`,
    `${log4jTime(at)} INFO YarnClientImpl: Submitted application ${step.applicationId}`,
    `${log4jTime(step.endAtMs ?? at)} INFO Client: Application report for ${step.applicationId} (state: FINISHED)`,
    `${log4jTime(step.endAtMs ?? at)} INFO Client: final status: ${step.outcome === 'FAILED' ? 'FAILED' : 'SUCCEEDED'}`,
    '',
  ].join('\n');
}

function stepController(step: StepState): string {
  const args = [step.config.HadoopJarStep.Jar, ...(step.config.HadoopJarStep.Args ?? [])].join(' ');
  return [
    `${new Date(step.startAtMs ?? 0).toISOString()} INFO Step created jobs: ${step.id}`,
    `${new Date(step.startAtMs ?? 0).toISOString()} INFO startExec '${args}'`,
    `${new Date(step.endAtMs ?? 0).toISOString()} INFO Step ${step.outcome === 'FAILED' ? 'failed' : 'succeeded'} with exitCode ${step.outcome === 'FAILED' ? 1 : 0}`,
    '',
  ].join('\n');
}
