import { createRandom, deriveSeed, type Random } from '@setpoint/foundation/random';
import type { StageModel, Workload } from '../workloads/schema.js';
import type { SimClusterSpec } from './cluster-spec.js';
import { computeCost, type NodeUsage } from './cost.js';
import { type ExecutorShape, executorShape } from './executor-model.js';
import { MinHeap } from './min-heap.js';
import type {
  ClusterEventRecord,
  ClusterSimulation,
  ExecutorRecord,
  SegmentResult,
  SparkJobRecord,
  StageRecord,
  TaskRecord,
} from './simulation-types.js';

export interface WorkloadSegment {
  workload: Workload;
  /** Label of the segment (the task key in a multi-task job). */
  label?: string;
  /** The segment may not start before this offset from the cluster request (upstream tasks elsewhere). */
  notBeforeMs?: number;
}

export interface SimulationSettings {
  seed: number;
  runIndex: number;
  /** Simulated weeks since the job was created; drives data growth. Defaults to runIndex / 7 (a daily job). */
  weeksElapsed?: number;
  /** Run-to-run noise (standard deviation of the run-level factor); 0.03 unless set. */
  noise?: number;
  /** How an autoscaling cluster gets more workers; a classic cluster's pace unless set. */
  scaleUp?: ScaleUpPace;
}

/**
 * How workers join when a stage wants more: each step waits `minSeconds`–`maxSeconds`; `doubling` grows the
 * cluster at most twofold per step (new cloud instances), otherwise every wanted worker comes in one step
 * (capacity kept warm by the provider).
 */
export interface ScaleUpPace {
  minSeconds: number;
  maxSeconds: number;
  doubling: boolean;
  /** Workers still being removed are kept first (their removal cancelled) before any new one is added. */
  keepsLeavingWorkers: boolean;
  /** A worker left idle while a stage still runs (its straggling tasks elsewhere) is removed after a minute. */
  removesIdleWorkers: boolean;
}

/** Optimized autoscaling of a classic cluster: roughly doubles per step, each step waits for new instances. */
export const classicScaleUp: ScaleUpPace = {
  minSeconds: 70,
  maxSeconds: 100,
  doubling: true,
  keepsLeavingWorkers: false,
  removesIdleWorkers: false,
};

const second = 1000;
const maxTaskFailures = 4;
/** Run-to-run spread of each task's share of a skewed stage. */
const skewJitter = 0.1;
const runNoiseDefault = 0.03;
/** Share of spot requests that find no capacity. */
const spotCapacityShortfall = 0.1;

interface LiveExecutor {
  record: ExecutorRecord;
  lostAtMs: number;
  lossHandled: boolean;
  /** Autoscaling decommissions the executor from this time on (it finishes its running tasks). */
  retireAtMs: number;
  /** Slots dropped because the executor was retiring; given back if its removal is cancelled. */
  droppedSlots: number;
  busyUntilMs: number;
  usage: NodeUsage | undefined;
}

interface Slot {
  freeAtMs: number;
  executor: LiveExecutor;
}

interface StageOutcome {
  endMs: number;
  failure?: string;
}

function workerCountAtStart(spec: SimClusterSpec): number {
  return spec.workers.kind === 'fixed' ? spec.workers.count : spec.workers.min;
}

function stageKey(workload: Workload, jobIndex: number, stage: StageModel): string {
  return `${workload.name}/${jobIndex}/${stage.id}`;
}

/** Executes workloads one after another on one simulated job cluster, as Spark would on Databricks. */
export class ClusterSimulator {
  private readonly shape: ExecutorShape;
  private readonly random: Random;
  private readonly executors: LiveExecutor[] = [];
  private readonly slots = new MinHeap<Slot>((slot) => slot.freeAtMs);
  private readonly events: ClusterEventRecord[] = [];
  private readonly jobs: SparkJobRecord[] = [];
  private readonly stages: StageRecord[] = [];
  private readonly tasks: TaskRecord[] = [];
  private readonly usage: NodeUsage[] = [];
  private readonly runFactor: number;
  private readonly dataScale: number;
  private nextExecutorId = 0;
  private nextTaskId = 0;
  private nextStageId = 0;
  private targetWorkers: number;
  private liveWorkers = 0;

  constructor(
    private readonly spec: SimClusterSpec,
    private readonly settings: SimulationSettings,
    growthPerWeek: number,
  ) {
    this.shape = executorShape(spec);
    this.random = createRandom(deriveSeed(settings.seed, settings.runIndex, 'cluster'));
    const noise = settings.noise ?? runNoiseDefault;
    this.runFactor = Math.max(
      0.8,
      createRandom(deriveSeed(settings.seed, settings.runIndex, 'noise')).normal(1, noise),
    );
    const weeks = settings.weeksElapsed ?? settings.runIndex / 7;
    this.dataScale = (1 + growthPerWeek) ** weeks;
    this.targetWorkers = workerCountAtStart(spec);
  }

  run(segments: readonly WorkloadSegment[]): ClusterSimulation {
    const spec = this.spec;
    const startupMs = Math.round(
      (spec.nodeType.cloud === 'Azure' ? 230 : 170) * second +
        this.random.next() * 80 * second +
        (spec.availability === 'ON_DEMAND' ? 0 : 15 * second),
    );
    this.events.push({
      offsetMs: 0,
      type: 'CREATING',
      details: { cluster_size: this.clusterSizeDetails(), user: 'setpoint-emulator' },
    });
    this.usage.push({ node: spec.driverNodeType, role: 'driver', spot: false, fromMs: 30 * second, toMs: 0 });
    for (let index = 0; index < this.targetWorkers; index += 1)
      this.addExecutor(startupMs, 30 * second, index);
    if (this.targetWorkers === 0) {
      // A single-node cluster runs its tasks on the driver, which is already billed.
      this.addExecutor(startupMs, 30 * second, 0, true, false);
      this.liveWorkers = 0;
    }
    this.events.push({
      offsetMs: startupMs,
      type: 'RUNNING',
      details: { current_num_workers: this.liveWorkers, target_num_workers: this.targetWorkers },
    });
    const executionStartMs = startupMs + 8 * second;
    let cursor = executionStartMs;
    let failure: string | undefined;
    const segmentResults: SegmentResult[] = [];
    segments.forEach((segment, segmentIndex) => {
      const label = segment.label ?? segment.workload.name;
      if (failure !== undefined) {
        segmentResults.push({
          workloadName: segment.workload.name,
          label,
          startMs: cursor,
          endMs: cursor,
          outcome: 'SKIPPED',
        });
        return;
      }
      const startMs = Math.max(cursor, segment.notBeforeMs ?? 0);
      const result = this.runWorkload(segment.workload, segmentIndex, startMs);
      cursor = result.endMs;
      failure = result.failure;
      segmentResults.push({
        workloadName: segment.workload.name,
        label,
        startMs,
        endMs: result.endMs,
        outcome: result.failure === undefined ? 'SUCCESS' : 'FAILED',
        ...(result.failure === undefined ? {} : { failureMessage: result.failure }),
      });
    });
    const executionEndMs = cursor + 2 * second;
    this.handleLossesBefore(executionEndMs);
    const terminatingMs = executionEndMs + 4 * second;
    const terminatedMs = terminatingMs + Math.round((20 + this.random.next() * 15) * second);
    this.events.push({
      offsetMs: terminatingMs,
      type: 'TERMINATING',
      details: { reason: { code: 'JOB_FINISHED', type: 'SUCCESS', parameters: {} } },
    });
    for (const executor of this.executors) {
      if (executor.record.removedMs === undefined && executor.retireAtMs < terminatingMs) {
        const removedMs = Math.min(terminatingMs, Math.max(executor.retireAtMs, executor.busyUntilMs));
        executor.record.removedMs = removedMs;
        executor.record.removedReason = 'Executor decommissioned: the cluster was downsized by autoscaling';
        if (executor.usage) executor.usage.toMs = removedMs + 30 * second;
      }
      if (executor.record.removedMs === undefined) {
        executor.record.removedMs = terminatingMs;
        executor.record.removedReason = 'Cluster terminated';
      }
    }
    for (const usage of this.usage) if (usage.toMs === 0) usage.toMs = terminatedMs;
    this.events.sort((a, b) => a.offsetMs - b.offsetMs);
    const ebsGbPerNode =
      spec.nodeType.localDisk === 'none'
        ? Math.max(1, spec.ebs.count) * Math.max(100, spec.ebs.sizeGb)
        : spec.ebs.count * spec.ebs.sizeGb;
    return {
      spec,
      outcome: failure === undefined ? 'SUCCESS' : 'FAILED',
      ...(failure === undefined ? {} : { failureMessage: failure }),
      clusterReadyMs: startupMs,
      executionStartMs,
      executionEndMs,
      terminatingMs,
      terminatedMs,
      segments: segmentResults,
      clusterEvents: this.events,
      executors: this.executors.map((executor) => executor.record),
      jobs: this.jobs,
      stages: this.stages,
      tasks: this.tasks,
      usage: this.usage,
      cost: computeCost(this.usage, { photon: spec.photon, ebsGbPerNode }),
      dataScale: this.dataScale,
    };
  }

  private clusterSizeDetails(): Record<string, unknown> {
    const workers = this.spec.workers;
    return workers.kind === 'fixed'
      ? { num_workers: workers.count }
      : { autoscale: { min_workers: workers.min, max_workers: workers.max } };
  }

  private isSpotWorker(workerIndex: number): boolean {
    if (this.spec.availability === 'ON_DEMAND') return false;
    // The driver is the first on-demand node; workers fill the remaining on-demand places.
    return workerIndex >= this.spec.firstOnDemand - 1;
  }

  private addExecutor(
    readyMs: number,
    launchMs: number,
    workerIndex: number,
    forceOnDemand = false,
    billed = true,
  ): LiveExecutor {
    const id = this.nextExecutorId;
    this.nextExecutorId += 1;
    const lossRandom = createRandom(deriveSeed(this.settings.seed, this.settings.runIndex, 'spot', id));
    // Spot capacity is sometimes short: with fallback, Databricks launches those nodes on demand.
    const capacityShort = lossRandom.next() < spotCapacityShortfall;
    const fallback = capacityShort && this.spec.availability === 'SPOT_WITH_FALLBACK';
    const spot = !forceOnDemand && !fallback && this.isSpotWorker(workerIndex);
    const host = `10.0.${1 + Math.floor(id / 250)}.${10 + (id % 250)}`;
    const hourlyRate = this.spec.nodeType.spotInterruptionsPerHour;
    const instanceId = `i-${deriveSeed(this.settings.seed, 'instance', id, this.settings.runIndex).toString(16).padStart(8, '0')}${id.toString(16).padStart(8, '0')}`;
    const lostAtMs = spot
      ? readyMs + lossRandom.exponential(hourlyRate / 3_600_000)
      : Number.POSITIVE_INFINITY;
    const executor: LiveExecutor = {
      record: {
        executorId: String(id),
        host,
        instanceId,
        cores: this.shape.cores,
        spot,
        addedMs: readyMs,
      },
      lostAtMs,
      lossHandled: false,
      retireAtMs: Number.POSITIVE_INFINITY,
      droppedSlots: 0,
      busyUntilMs: readyMs,
      usage: billed
        ? { node: this.spec.nodeType, role: 'worker', spot, fromMs: launchMs, toMs: 0, instanceId }
        : undefined,
    };
    this.executors.push(executor);
    if (executor.usage) this.usage.push(executor.usage);
    this.liveWorkers += 1;
    for (let core = 0; core < this.shape.cores; core += 1) this.slots.push({ freeAtMs: readyMs, executor });
    return executor;
  }

  private handleLoss(executor: LiveExecutor): void {
    if (executor.lossHandled) return;
    executor.lossHandled = true;
    const lostAt = Math.round(executor.lostAtMs);
    executor.record.removedMs = lostAt;
    executor.record.removedReason = 'Executor lost: the spot instance was reclaimed by the cloud provider';
    this.liveWorkers -= 1;
    if (executor.usage) executor.usage.toMs = lostAt;
    this.events.push({
      offsetMs: lostAt,
      type: 'NODES_LOST',
      details: {
        current_num_workers: this.liveWorkers,
        target_num_workers: this.targetWorkers,
        instance_id: executor.record.instanceId,
        reason: { code: 'SPOT_INSTANCE_TERMINATION', type: 'CLOUD_FAILURE', parameters: {} },
      },
    });
    this.events.push({
      offsetMs: lostAt + second,
      type: 'RESIZING',
      details: {
        current_num_workers: this.liveWorkers,
        target_num_workers: this.targetWorkers,
        cause: 'AUTORECOVERY',
      },
    });
    const fallback = this.spec.availability === 'SPOT_WITH_FALLBACK';
    const delay = (fallback ? 80 : 120) * second + this.random.next() * 60 * second;
    const replacementReady = Math.round(lostAt + delay);
    this.addExecutor(replacementReady, lostAt + second, this.spec.firstOnDemand + 1, fallback);
    this.events.push({
      offsetMs: replacementReady,
      type: 'UPSIZE_COMPLETED',
      details: {
        current_num_workers: this.liveWorkers,
        target_num_workers: this.targetWorkers,
        cause: 'AUTORECOVERY',
      },
    });
  }

  private handleLossesBefore(untilMs: number): void {
    for (let index = 0; index < this.executors.length; index += 1) {
      const executor = this.executors[index]!;
      const lostWhileServing = executor.lostAtMs < Math.min(untilMs, executor.retireAtMs);
      if (!executor.lossHandled && lostWhileServing && executor.record.removedMs === undefined) {
        this.handleLoss(executor);
      }
    }
  }

  private maybeAutoscale(atMs: number, taskCount: number): void {
    const workers = this.spec.workers;
    if (workers.kind !== 'autoscale') return;
    const wanted = Math.min(workers.max, Math.max(workers.min, Math.ceil(taskCount / this.shape.cores)));
    if (wanted < this.targetWorkers) {
      this.downscale(atMs, wanted);
      return;
    }
    if (wanted === this.targetWorkers) return;
    const pace = this.settings.scaleUp ?? classicScaleUp;
    const kept = pace.keepsLeavingWorkers ? this.keepLeaving(atMs, wanted - this.targetWorkers) : 0;
    const from = this.targetWorkers + kept;
    this.targetWorkers = wanted;
    this.events.push({
      offsetMs: atMs,
      type: 'RESIZING',
      details: { current_num_workers: this.liveWorkers, target_num_workers: wanted, cause: 'AUTOSCALE' },
    });
    let current = from;
    let step = 0;
    while (current < wanted) {
      step += 1;
      const batch = pace.doubling ? Math.min(wanted - current, Math.max(1, current)) : wanted - current;
      const stepSeconds = pace.minSeconds + this.random.next() * (pace.maxSeconds - pace.minSeconds);
      const readyMs = Math.round(atMs + step * stepSeconds * second);
      for (let index = 0; index < batch; index += 1)
        this.addExecutor(readyMs, readyMs - 60 * second, current + index);
      current += batch;
      this.events.push({
        offsetMs: readyMs,
        type: 'UPSIZE_COMPLETED',
        details: { current_num_workers: this.liveWorkers, target_num_workers: wanted, cause: 'AUTOSCALE' },
      });
    }
  }

  /** Cancels the removal of up to `count` workers still leaving at `atMs`; returns how many stay. */
  private keepLeaving(atMs: number, count: number): number {
    const leaving = this.executors.filter(
      (executor) =>
        executor.usage !== undefined &&
        !executor.lossHandled &&
        executor.retireAtMs !== Number.POSITIVE_INFINITY &&
        executor.retireAtMs > atMs,
    );
    const kept = leaving.slice(0, count);
    for (const executor of kept) {
      executor.retireAtMs = Number.POSITIVE_INFINITY;
      const freeAtMs = Math.max(atMs, executor.busyUntilMs);
      for (let slot = 0; slot < executor.droppedSlots; slot += 1) this.slots.push({ freeAtMs, executor });
      executor.droppedSlots = 0;
    }
    this.liveWorkers += kept.length;
    return kept.length;
  }

  /** Removes the workers that idled a minute before the stage ended, keeping the cluster's minimum. */
  private removeIdle(readyMs: number, endMs: number): void {
    const workers = this.spec.workers;
    if (workers.kind !== 'autoscale') return;
    const idleMs = 60 * second;
    const serving = this.executors
      .filter(
        (executor) =>
          executor.usage !== undefined &&
          !executor.lossHandled &&
          executor.retireAtMs === Number.POSITIVE_INFINITY,
      )
      .sort((a, b) => a.busyUntilMs - b.busyUntilMs);
    const removable = Math.max(0, serving.length - workers.min);
    const idle = serving
      .slice(0, removable)
      .filter((executor) => Math.max(executor.busyUntilMs, readyMs) + idleMs < endMs);
    for (const executor of idle) executor.retireAtMs = Math.max(executor.busyUntilMs, readyMs) + idleMs;
    this.liveWorkers -= idle.length;
    this.targetWorkers = Math.max(workers.min, this.targetWorkers - idle.length);
  }

  /** Optimized autoscaling removes underused workers after they have idled for about a minute. */
  private downscale(atMs: number, wanted: number): void {
    const retireAtMs = atMs + 60 * second;
    const serving = this.executors.filter(
      (executor) =>
        executor.usage !== undefined &&
        !executor.lossHandled &&
        executor.retireAtMs === Number.POSITIVE_INFINITY,
    );
    const surplus = serving.length - wanted;
    if (surplus <= 0) return;
    for (const executor of serving.slice(-surplus)) executor.retireAtMs = retireAtMs;
    this.targetWorkers = wanted;
    this.liveWorkers -= surplus;
    this.events.push({
      offsetMs: retireAtMs,
      type: 'RESIZING',
      details: {
        current_num_workers: this.liveWorkers + surplus,
        target_num_workers: wanted,
        cause: 'AUTOSCALE',
      },
    });
  }

  private runWorkload(
    workload: Workload,
    segment: number,
    startMs: number,
  ): { endMs: number; failure?: string } {
    const code =
      workload.codeChange && this.settings.runIndex >= workload.codeChange.fromRunIndex
        ? workload.codeChange
        : undefined;
    let cursor = startMs;
    for (let jobIndex = 0; jobIndex < workload.jobs.length; jobIndex += 1) {
      const job = workload.jobs[jobIndex]!;
      const submittedMs = cursor + Math.round(workload.driverGapSeconds * second);
      const stageIds = new Map<number, number>();
      for (const stage of job.stages) {
        stageIds.set(stage.id, this.nextStageId);
        this.nextStageId += 1;
      }
      const jobRecord: SparkJobRecord = {
        jobId: this.jobs.length,
        description: `${workload.name}: ${job.name}`,
        segment,
        stageIds: [...stageIds.values()],
        submittedMs,
        completedMs: submittedMs,
        succeeded: true,
      };
      this.jobs.push(jobRecord);
      const stageEnds = new Map<number, number>();
      let jobEnd = submittedMs;
      const ordered = [...job.stages].sort((a, b) => a.id - b.id);
      for (const stage of ordered) {
        const ready = Math.max(
          submittedMs,
          ...stage.parents.map((parent) => stageEnds.get(parent) ?? submittedMs),
        );
        const sparkStageId = stageIds.get(stage.id)!;
        const outcome = this.runStage(workload, jobIndex, stage, sparkStageId, stageIds, ready, {
          cpuScale: code?.cpuScale ?? 1,
          memoryScale: code?.memoryScale ?? 1,
          shuffleScale: code?.shuffleScale ?? 1,
        });
        stageEnds.set(stage.id, outcome.endMs);
        jobEnd = Math.max(jobEnd, outcome.endMs);
        if (outcome.failure !== undefined) {
          jobRecord.completedMs = outcome.endMs;
          jobRecord.succeeded = false;
          jobRecord.failureMessage = outcome.failure;
          return { endMs: outcome.endMs, failure: outcome.failure };
        }
      }
      jobRecord.completedMs = jobEnd;
      cursor = jobEnd;
    }
    return { endMs: cursor };
  }

  private popLiveSlot(notBeforeMs: number): Slot {
    for (;;) {
      const slot = this.slots.pop();
      if (!slot) throw new Error('simulated cluster has no executors left');
      const executor = slot.executor;
      const start = Math.max(slot.freeAtMs, notBeforeMs);
      if (executor.record.removedMs !== undefined && executor.lossHandled) continue;
      if (start >= executor.retireAtMs) {
        executor.droppedSlots += 1;
        continue;
      }
      if (start >= executor.lostAtMs) {
        this.handleLoss(executor);
        continue;
      }
      return slot;
    }
  }

  private runStage(
    workload: Workload,
    jobIndex: number,
    stage: StageModel,
    sparkStageId: number,
    stageIds: Map<number, number>,
    readyMs: number,
    code: { cpuScale: number; memoryScale: number; shuffleScale: number },
  ): StageOutcome {
    const spec = this.spec;
    const shape = this.shape;
    const scale = this.dataScale;
    const partitionOverride = Number(spec.sparkConf['spark.sql.shuffle.partitions'] ?? '');
    const usesShufflePartitions = !stage.tasksScaleWithData && stage.shuffleReadBytes > 0;
    const taskCount = stage.tasksScaleWithData
      ? Math.max(1, Math.ceil(stage.tasks * scale))
      : usesShufflePartitions && partitionOverride > 0
        ? partitionOverride
        : stage.tasks;
    const perTask = (total: number) => total / taskCount;
    const cpuPerTask = perTask(stage.tasks * stage.cpuSecondsPerTask * scale * code.cpuScale);
    const inputPerTask = perTask(stage.inputBytes * scale);
    const outputPerTask = perTask(stage.outputBytes * scale);
    const shuffleReadPerTask = perTask(stage.shuffleReadBytes * scale * code.shuffleScale);
    const shuffleWritePerTask = perTask(stage.shuffleWriteBytes * scale * code.shuffleScale);
    const memoryPerTask = (stage.memoryPerTaskBytes * stage.tasks * scale * code.memoryScale) / taskCount;
    const photonFactor =
      spec.photon && spec.nodeType.photonCapable
        ? 1 - stage.photonEligible + stage.photonEligible / workload.photonSpeedup
        : 1;
    const workers = Math.max(1, this.liveWorkers);
    const remoteShare = (workers - 1) / workers;
    const shuffleBandwidth = (shape.networkGBpsPerCore * 1e9) / (1 + 0.004 * workers);
    const inputBandwidth = Math.min(shape.networkGBpsPerCore * 1e9, 0.1e9);
    const diskBandwidth = Math.max(shape.diskGbpsPerCore * 1e9, 5e6);
    const available = shape.executionMemoryPerTaskBytes;
    // Which keys are hot is a property of the data, so the same tasks are heavy run after run (and in
    // a workload imported from this one's log); each run only shifts every task's share a little.
    const skewRandom = createRandom(deriveSeed(this.settings.seed, 'skew', jobIndex, stage.id));
    const jitterRandom = createRandom(
      deriveSeed(this.settings.seed, this.settings.runIndex, stageKey(workload, jobIndex, stage)),
    );
    const skews = Array.from(
      { length: taskCount },
      () => skewRandom.logNormal(stage.skew) * jitterRandom.logNormal(skewJitter),
    );

    this.maybeAutoscale(readyMs, taskCount);
    const stageRecord: StageRecord = {
      stageId: sparkStageId,
      name: stage.name,
      tasks: taskCount,
      parentIds: stage.parents
        .map((parent) => stageIds.get(parent))
        .filter((id): id is number => id !== undefined),
      submittedMs: readyMs,
      completedMs: readyMs,
    };
    this.stages.push(stageRecord);

    const pending: Array<{ index: number; attempt: number; failures: number; resubmitted: boolean }> = [];
    for (let index = 0; index < taskCount; index += 1)
      pending.push({ index, attempt: 0, failures: 0, resubmitted: false });
    const completedOn = new Map<LiveExecutor, number[]>();
    const shuffleMap = stage.shuffleWriteBytes > 0;
    let endMs = readyMs;
    let failure: string | undefined;
    let cursor = 0;
    while (cursor < pending.length) {
      const item = pending[cursor]!;
      cursor += 1;
      const slot = this.popLiveSlot(readyMs);
      const executor = slot.executor;
      const launchMs = Math.max(slot.freeAtMs, readyMs);
      const skew = skews[item.index]!;
      const working = memoryPerTask * skew;
      const spilled = Math.max(0, working - available);
      const cpuSeconds = (cpuPerTask * skew * photonFactor) / shape.cpuFactor;
      const spillSeconds =
        spilled > 0 ? (2 * spilled * 0.5) / diskBandwidth + cpuSeconds * 0.3 * (spilled / working) : 0;
      const ioSeconds = (inputPerTask * skew) / inputBandwidth + (outputPerTask * skew) / inputBandwidth;
      const shuffleReadSeconds = (shuffleReadPerTask * skew * remoteShare) / shuffleBandwidth;
      const shuffleWriteSeconds = (shuffleWritePerTask * skew) / (diskBandwidth * 2);
      const pressure = available > 0 ? Math.min(1, working / available) : 0;
      const gcSeconds = cpuSeconds * (0.02 + 0.12 * pressure);
      const overheadSeconds = 0.05 + 0.02 * this.random.next();
      const durationMs = Math.max(
        5,
        Math.round(
          (overheadSeconds +
            cpuSeconds +
            gcSeconds +
            spillSeconds +
            ioSeconds +
            shuffleReadSeconds +
            shuffleWriteSeconds) *
            this.runFactor *
            second,
        ),
      );
      const oom = working * stage.unspillableFraction > available;
      const finishMs = oom ? launchMs + Math.max(5, Math.round(durationMs * 0.6)) : launchMs + durationMs;
      const lost = executor.lostAtMs < finishMs;
      const endedMs = lost ? Math.round(executor.lostAtMs) : finishMs;
      const taskId = this.nextTaskId;
      this.nextTaskId += 1;
      const fraction = (endedMs - launchMs) / Math.max(1, durationMs);
      this.tasks.push({
        taskId,
        stageId: sparkStageId,
        index: item.index,
        attempt: item.attempt,
        executorId: executor.record.executorId,
        host: executor.record.host,
        launchMs,
        finishMs: endedMs,
        end: lost ? 'ExecutorLost' : oom ? 'OutOfMemory' : item.resubmitted ? 'Resubmitted' : 'Success',
        shuffleMap,
        metrics: {
          deserializeMs: Math.round(overheadSeconds * 400),
          runMs: Math.max(1, endedMs - launchMs - Math.round(overheadSeconds * 400)),
          cpuNs: Math.round(cpuSeconds * fraction * 1e9 * this.runFactor),
          gcMs: Math.round(gcSeconds * fraction * 1000),
          peakExecutionMemory: Math.round(Math.min(working, available)),
          inputBytes: Math.round(inputPerTask * skew * Math.min(1, fraction)),
          inputRecords: Math.round((inputPerTask * skew * Math.min(1, fraction)) / 100),
          outputBytes: lost || oom ? 0 : Math.round(outputPerTask * skew),
          outputRecords: lost || oom ? 0 : Math.round((outputPerTask * skew) / 100),
          shuffleRemoteBytes: Math.round(shuffleReadPerTask * skew * remoteShare * Math.min(1, fraction)),
          shuffleLocalBytes: Math.round(
            shuffleReadPerTask * skew * (1 - remoteShare) * Math.min(1, fraction),
          ),
          shuffleFetchWaitMs: Math.round(shuffleReadSeconds * 0.3 * 1000),
          shuffleRecordsRead: Math.round((shuffleReadPerTask * skew) / 60),
          shuffleWriteBytes: lost || oom ? 0 : Math.round(shuffleWritePerTask * skew),
          shuffleWriteNs: lost || oom ? 0 : Math.round(shuffleWriteSeconds * 1e9),
          shuffleRecordsWritten: lost || oom ? 0 : Math.round((shuffleWritePerTask * skew) / 60),
          memorySpilled: Math.round(spilled * Math.min(1, fraction)),
          diskSpilled: Math.round(spilled * 0.5 * Math.min(1, fraction)),
          resultSize: 2_000 + (item.index % 7) * 13,
        },
      });
      endMs = Math.max(endMs, endedMs);
      slot.freeAtMs = endedMs;
      executor.busyUntilMs = Math.max(executor.busyUntilMs, endedMs);
      this.slots.push(slot);
      if (lost) {
        this.handleLoss(executor);
        pending.push({
          index: item.index,
          attempt: item.attempt + 1,
          failures: item.failures,
          resubmitted: false,
        });
        if (shuffleMap) {
          // Map output stored on the lost node is gone; Spark resubmits those tasks.
          for (const index of completedOn.get(executor) ?? []) {
            pending.push({ index, attempt: item.attempt + 1, failures: 0, resubmitted: true });
          }
          completedOn.delete(executor);
        }
        continue;
      }
      if (oom) {
        const failures = item.failures + 1;
        if (failures >= maxTaskFailures) {
          failure = `Job aborted due to stage failure: Task ${item.index} in stage ${sparkStageId}.0 failed ${maxTaskFailures} times, most recent failure: java.lang.OutOfMemoryError: Java heap space`;
          break;
        }
        pending.push({ index: item.index, attempt: item.attempt + 1, failures, resubmitted: false });
        continue;
      }
      const done = completedOn.get(executor) ?? [];
      done.push(item.index);
      completedOn.set(executor, done);
    }
    stageRecord.completedMs = endMs;
    if (failure !== undefined) stageRecord.failureReason = failure;
    if ((this.settings.scaleUp ?? classicScaleUp).removesIdleWorkers) this.removeIdle(readyMs, endMs);
    return failure === undefined ? { endMs } : { endMs, failure };
  }
}

export function simulateCluster(
  spec: SimClusterSpec,
  segments: readonly WorkloadSegment[],
  settings: SimulationSettings,
): ClusterSimulation {
  const growth = Math.max(0, ...segments.map((segment) => segment.workload.growthPerWeek));
  return new ClusterSimulator(spec, settings, growth).run(segments);
}
