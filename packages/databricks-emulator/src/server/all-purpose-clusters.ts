import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import { type SimClusterSpec, toSimClusterSpec } from '../physics/cluster-spec.js';
import { photonDbuMultiplier } from '../physics/cost.js';
import { simulateCluster, type WorkloadSegment } from '../physics/simulate-cluster.js';
import type { SegmentResult } from '../physics/simulation-types.js';
import { invalidParameter, invalidState } from './api-errors.js';
import { int64 } from './cluster-views.js';
import type { AllPurposeCluster, AllPurposeLife, EmulatorState } from './emulator-state.js';
import { clusterWithDefaults } from './job-settings.js';
import type { NewClusterSettings } from './schema.js';
import type { SimClock } from './sim-clock.js';
import { addUsageByHour, hourMs } from './system-tables/billing-usage.js';
import { workspaceUser } from './workspace-user.js';

const minuteMs = 60_000;
/** From a stop to TERMINATED, as a job cluster takes (`simulate-cluster.ts`). */
const terminationMs = 15_000;
/** Nodes are launched 30 s after a start is asked for (the physics' driver launch). */
const launchMs = 30_000;
/** A task attaches to a running cluster's Spark context within a couple of seconds. */
const attachMs = 2_000;

/** Why a life of the cluster ended, as `termination_reason.code` names it. */
type StopReason = 'USER_REQUEST' | 'INACTIVITY';

export type AllPurposeState = 'PENDING' | 'RESTARTING' | 'RUNNING' | 'TERMINATING' | 'TERMINATED';

function autoterminationMs(cluster: AllPurposeCluster): number | undefined {
  const minutes = cluster.spec.autotermination_minutes ?? 0;
  return minutes > 0 ? minutes * minuteMs : undefined;
}

/** When the life stops: a user's stop, or its idle time reaching `autotermination_minutes`. */
export function lifeEndMs(cluster: AllPurposeCluster, life: AllPurposeLife): number {
  const idle = autoterminationMs(cluster);
  const idleEnd =
    idle === undefined ? Number.POSITIVE_INFINITY : Math.max(life.readyMs, life.lastActivityMs) + idle;
  return Math.min(life.stoppedMs ?? Number.POSITIVE_INFINITY, idleEnd);
}

function stopReasonOf(cluster: AllPurposeCluster, life: AllPurposeLife): StopReason {
  return life.stoppedMs !== undefined && life.stoppedMs <= lifeEndMs(cluster, life)
    ? 'USER_REQUEST'
    : 'INACTIVITY';
}

function currentLife(cluster: AllPurposeCluster): AllPurposeLife {
  return cluster.lives[cluster.lives.length - 1]!;
}

export function allPurposeState(cluster: AllPurposeCluster, nowMs: number): AllPurposeState {
  const life = currentLife(cluster);
  if (nowMs < life.readyMs) return life.restart ? 'RESTARTING' : 'PENDING';
  const end = lifeEndMs(cluster, life);
  if (nowMs < end) return 'RUNNING';
  return nowMs < end + terminationMs ? 'TERMINATING' : 'TERMINATED';
}

function isUp(cluster: AllPurposeCluster, atMs: number): boolean {
  return atMs < lifeEndMs(cluster, currentLife(cluster));
}

interface AllPurposeDeps {
  state: EmulatorState;
  clock: SimClock;
  seed: number;
  /** Refuses a cluster spec the workspace would refuse (the validity contract, `cluster-validity.ts`). */
  refuseInvalid: (endpoint: string, spec: NewClusterSettings) => void;
}

export class AllPurposeClusters {
  constructor(private readonly context: AllPurposeDeps) {}

  /** The cluster, unless it never existed or was permanently deleted (Databricks' message). */
  require(clusterId: string | undefined): AllPurposeCluster {
    if (!clusterId) throw invalidParameter('Missing required field: cluster_id');
    const cluster = this.find(clusterId);
    if (!cluster) throw invalidParameter(`Cluster ${clusterId} does not exist`);
    return cluster;
  }

  find(clusterId: string): AllPurposeCluster | undefined {
    const cluster = this.context.state.allPurposeClusters.get(clusterId);
    return cluster && !cluster.permanentlyDeleted ? cluster : undefined;
  }

  create(endpoint: string, body: NewClusterSettings & { cluster_name?: string }): AllPurposeCluster {
    const now = this.context.clock.now();
    const spec = this.accepted(endpoint, body);
    const clusterId = this.newClusterId(now);
    const cluster: AllPurposeCluster = {
      clusterId,
      clusterName: body.cluster_name ?? clusterId,
      spec,
      sim: toSimClusterSpec(spec),
      createdMs: now,
      lives: [],
      versions: [{ atMs: now, spec }],
      edits: [],
      permanentlyDeleted: false,
    };
    this.startLife(cluster, now, false);
    this.context.state.allPurposeClusters.set(clusterId, cluster);
    return cluster;
  }

  /** A running cluster restarts with the new spec; a terminated one keeps it for its next start. */
  edit(endpoint: string, clusterId: string | undefined, body: NewClusterSettings): void {
    const cluster = this.require(clusterId);
    const now = this.context.clock.now();
    const state = allPurposeState(cluster, now);
    if (state === 'TERMINATING' || state === 'PENDING' || state === 'RESTARTING')
      throw invalidState(`Cluster ${cluster.clusterId} is in unexpected state ${titleCase(state)}.`);
    const spec = this.accepted(endpoint, body);
    cluster.spec = spec;
    cluster.sim = toSimClusterSpec(spec);
    cluster.clusterName = (body as { cluster_name?: string }).cluster_name ?? cluster.clusterName;
    cluster.versions.push({ atMs: now, spec });
    cluster.edits.push(now);
    if (state === 'RUNNING') this.restartAt(cluster, now);
  }

  start(clusterId: string | undefined): void {
    const cluster = this.require(clusterId);
    const now = this.context.clock.now();
    const state = allPurposeState(cluster, now);
    if (state !== 'TERMINATED')
      throw invalidState(`Cluster ${cluster.clusterId} is in unexpected state ${titleCase(state)}.`);
    this.startLife(cluster, now, false);
  }

  restart(clusterId: string | undefined): void {
    const cluster = this.require(clusterId);
    const now = this.context.clock.now();
    const state = allPurposeState(cluster, now);
    if (state !== 'RUNNING' && state !== 'PENDING')
      throw invalidState(`Cluster ${cluster.clusterId} is in unexpected state ${titleCase(state)}.`);
    this.restartAt(cluster, now);
  }

  /** `clusters/delete`: terminates it; it stays listed and can be started again. */
  terminate(clusterId: string | undefined): void {
    const cluster = this.require(clusterId);
    const now = this.context.clock.now();
    if (isUp(cluster, now)) currentLife(cluster).stoppedMs = now;
  }

  /** `clusters/permanent-delete`: terminates it and forgets it (what it was billed stays billed). */
  permanentlyDelete(clusterId: string | undefined): void {
    const cluster = this.require(clusterId);
    this.terminate(cluster.clusterId);
    cluster.permanentlyDeleted = true;
  }

  /**
   * A job task with `existing_cluster_id`: Databricks starts the cluster if it is terminated, then runs the
   * task on it. Its runtime comes from the physics on this cluster's shape (no start-up when it is running).
   */
  runTask(
    clusterId: string,
    segment: WorkloadSegment,
    readyMs: number,
    settings: { seed: number; runIndex: number; weeksElapsed: number },
  ): {
    execStartMs: number;
    execEndMs: number;
    result: SegmentResult;
    sparkContextId: string;
  } {
    const cluster = this.find(clusterId);
    if (!cluster) throw invalidParameter(`Cluster ${clusterId} does not exist`);
    if (!isUp(cluster, readyMs)) this.startLife(cluster, readyMs, false);
    const life = currentLife(cluster);
    const simulation = simulateCluster(life.sim, [{ ...segment, notBeforeMs: 0 }], settings);
    const result = simulation.segments[0]!;
    const durationMs = Math.max(1_000, result.endMs - result.startMs);
    const execStartMs = Math.max(readyMs, life.readyMs) + attachMs;
    const execEndMs = execStartMs + durationMs;
    const workerMs = simulation.usage
      .filter((usage) => usage.role === 'worker')
      .reduce(
        (sum, usage) =>
          sum + Math.max(0, Math.min(usage.toMs, result.endMs) - Math.max(usage.fromMs, result.startMs)),
        0,
      );
    life.work.push({ fromMs: execStartMs, toMs: execEndMs, workers: workerMs / durationMs });
    life.lastActivityMs = Math.max(life.lastActivityMs, execEndMs);
    return { execStartMs, execEndMs, result, sparkContextId: life.sparkContextId };
  }

  /** The cluster spec as stored, once the validity contract accepts it (refusals answer as a workspace does). */
  private accepted(endpoint: string, body: NewClusterSettings): NewClusterSettings {
    const {
      cluster_id: _id,
      cluster_name: _name,
      ...spec
    } = body as NewClusterSettings & {
      cluster_id?: string;
      cluster_name?: string;
    };
    if (!spec.spark_version) throw invalidParameter('Missing required field: spark_version');
    this.context.refuseInvalid(endpoint, spec);
    if (!spec.node_type_id && !(spec as { instance_pool_id?: string }).instance_pool_id)
      throw invalidParameter('Missing required field: node_type_id');
    return spec;
  }

  private restartAt(cluster: AllPurposeCluster, atMs: number): void {
    currentLife(cluster).stoppedMs = atMs;
    this.startLife(cluster, atMs, true);
  }

  private startLife(cluster: AllPurposeCluster, atMs: number, restart: boolean): AllPurposeLife {
    const index = cluster.lives.length;
    const seed = deriveSeed(this.context.seed, cluster.clusterId, 'life', index);
    // the physics' start-up for this shape (node type, cloud, spot), without any work
    const readyMs = atMs + simulateCluster(cluster.sim, [], { seed, runIndex: 0 }).clusterReadyMs;
    const ids = createRandom(seed);
    const high = BigInt(ids.int(2 ** 31)) | (1n << 30n);
    const life: AllPurposeLife = {
      startMs: atMs,
      readyMs,
      sim: cluster.sim,
      sparkContextId: ((high << 32n) | BigInt(ids.int(2 ** 32))).toString(),
      restart,
      lastActivityMs: readyMs,
      work: [],
    };
    cluster.lives.push(life);
    return life;
  }

  private newClusterId(nowMs: number): string {
    const iso = new Date(nowMs).toISOString();
    const random = createRandom(
      deriveSeed(this.context.seed, 'all-purpose', this.context.state.allPurposeClusters.size),
    );
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const word = Array.from({ length: 4 }, () => letters[random.int(letters.length)]).join('');
    return `${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}-${word}${100 + random.int(900)}`;
  }
}

function titleCase(state: string): string {
  return state.charAt(0) + state.slice(1).toLowerCase();
}

/** `clusters/get` and `clusters/list` of an all-purpose cluster. */
export function allPurposeClusterJson(cluster: AllPurposeCluster, nowMs: number): Record<string, unknown> {
  const state = allPurposeState(cluster, nowMs);
  const life = currentLife(cluster);
  const running = state === 'RUNNING';
  const workers = cluster.sim.workers.kind === 'fixed' ? cluster.sim.workers.count : cluster.sim.workers.min;
  const end = lifeEndMs(cluster, life);
  const json: Record<string, unknown> = {
    cluster_id: cluster.clusterId,
    cluster_name: cluster.clusterName,
    ...clusterWithDefaults(cluster.spec),
    driver_node_type_id: cluster.spec.driver_node_type_id ?? cluster.sim.driverNodeType.nodeTypeId,
    autotermination_minutes: cluster.spec.autotermination_minutes ?? 0,
    cluster_source: 'API',
    creator_user_name: workspaceUser.userName,
    state,
    state_message:
      state === 'PENDING' || state === 'RESTARTING'
        ? 'Finding instances for new nodes, acquiring more instances if necessary'
        : state === 'TERMINATING'
          ? 'Terminating the cluster'
          : state === 'TERMINATED'
            ? stopReasonOf(cluster, life) === 'INACTIVITY'
              ? `Inactive cluster terminated (inactive for ${cluster.spec.autotermination_minutes} minutes).`
              : 'Terminated by user.'
            : '',
    start_time: cluster.createdMs,
    ...(cluster.lives.length > 1 ? { last_restarted_time: life.startMs } : {}),
    ...(state === 'TERMINATED' ? { terminated_time: end + terminationMs } : {}),
    last_state_loss_time: 0,
    default_tags: {
      Vendor: 'Databricks',
      Creator: workspaceUser.userName,
      ClusterName: cluster.clusterName,
      ClusterId: cluster.clusterId,
    },
    cluster_cores: running ? cluster.sim.nodeType.cores * workers + cluster.sim.driverNodeType.cores : 0,
    cluster_memory_mb: running
      ? cluster.sim.nodeType.memoryMb * workers + cluster.sim.driverNodeType.memoryMb
      : 0,
    spec: { cluster_name: cluster.clusterName, ...cluster.spec },
  };
  if (running) json.spark_context_id = int64(life.sparkContextId);
  if (state === 'TERMINATED')
    json.termination_reason = {
      code: stopReasonOf(cluster, life),
      type: 'SUCCESS',
      parameters:
        stopReasonOf(cluster, life) === 'INACTIVITY'
          ? { inactivity_duration_min: String(cluster.spec.autotermination_minutes) }
          : { username: workspaceUser.userName },
    };
  return json;
}

/** `clusters/events` of an all-purpose cluster, as far as they have happened by `nowMs`. */
export function allPurposeEvents(
  cluster: AllPurposeCluster,
  nowMs: number,
): Array<{ timestamp: number; type: string; details: Record<string, unknown> }> {
  // an edit comes before the restart it causes (same timestamp; the route's sort keeps this order)
  const events: Array<{ timestamp: number; type: string; details: Record<string, unknown> }> =
    cluster.edits.map((at) => ({ timestamp: at, type: 'EDITED', details: {} }));
  cluster.lives.forEach((life, index) => {
    const type = index === 0 ? 'CREATING' : life.restart ? 'RESTARTING' : 'STARTING';
    events.push({ timestamp: life.startMs, type, details: { user: workspaceUser.userName } });
    events.push({ timestamp: life.readyMs, type: 'RUNNING', details: {} });
    const end = lifeEndMs(cluster, life);
    const restartedNext =
      cluster.lives[index + 1]?.restart === true && cluster.lives[index + 1]?.startMs === end;
    if (Number.isFinite(end) && !restartedNext)
      events.push({
        timestamp: end,
        type: 'TERMINATING',
        details: { reason: { code: stopReasonOf(cluster, life), type: 'SUCCESS', parameters: {} } },
      });
  });
  return events.filter((event) => event.timestamp <= nowMs);
}

/**
 * DBUs of the cluster per clock hour, for the hours that ended by `untilMs`: the driver and the workers it
 * keeps (its `num_workers`, or `min_workers` when it autoscales) from launch to termination, plus the
 * workers an autoscaling cluster added while tasks ran. Databricks bills all-purpose compute at the same
 * DBUs per node-hour as jobs compute, under the all-purpose SKU.
 */
export function allPurposeDbusByHour(cluster: AllPurposeCluster, untilMs: number): Map<number, number> {
  const lastHourEnd = Math.floor(untilMs / hourMs) * hourMs;
  const perHour = new Map<number, number>();
  const add = (fromMs: number, toMs: number, dbuPerMs: number) =>
    addUsageByHour(perHour, fromMs, Math.min(toMs, lastHourEnd), dbuPerMs);
  for (const life of cluster.lives) {
    const { sim } = life;
    const rate = (node: SimClusterSpec['nodeType']) =>
      (node.dbuPerCoreHour * node.cores * (sim.photon ? photonDbuMultiplier : 1)) / hourMs;
    const baseline = sim.workers.kind === 'fixed' ? sim.workers.count : sim.workers.min;
    const from = life.startMs + launchMs;
    const to = lifeEndMs(cluster, life) + terminationMs;
    add(from, to, rate(sim.driverNodeType) + baseline * rate(sim.nodeType));
    if (sim.workers.kind === 'autoscale')
      for (const work of life.work)
        add(work.fromMs, work.toMs, Math.max(0, work.workers - baseline) * rate(sim.nodeType));
  }
  return perHour;
}
