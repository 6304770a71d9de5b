import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import { toSimClusterSpec } from '../physics/cluster-spec.js';
import { classicScaleUp, type ScaleUpPace, simulateCluster } from '../physics/simulate-cluster.js';
import type { ClusterSimulation } from '../physics/simulation-types.js';
import type { Workload } from '../workloads/schema.js';
import { type PerformanceTarget, performanceTargets, type TaskSettings } from './schema.js';

/** Serverless compute keeps a leaving worker a stage wants again and removes the ones a stage leaves idle. */
const serverlessPace = (pace: Pick<ScaleUpPace, 'minSeconds' | 'maxSeconds' | 'doubling'>): ScaleUpPace => ({
  ...pace,
  keepsLeavingWorkers: true,
  removesIdleWorkers: true,
});

/**
 * How each mode behaves, as Databricks documents it ("Serverless performance modes"): performance-optimized
 * compute is kept warm, starts in under a minute and gets more compute quickly from warm capacity; standard
 * starts in about 4 to 6 minutes, adds compute more slowly (a run that scales up may take longer) and consumes
 * fewer DBUs for the same work, at the same price per DBU and SKU. The emulator's standard mode bills 30 %
 * fewer DBUs per node-second and adds workers at a classic cluster's pace (new instances, about twofold per
 * step); performance-optimized adds every wanted worker in one step of 5–15 s.
 */
export const serverlessModes: Record<
  PerformanceTarget,
  { startupMs: { min: number; max: number }; dbuFactor: number; scaleUp: ScaleUpPace }
> = {
  PERFORMANCE_OPTIMIZED: {
    startupMs: { min: 10_000, max: 50_000 },
    dbuFactor: 1,
    scaleUp: serverlessPace({ minSeconds: 5, maxSeconds: 15, doubling: false }),
  },
  STANDARD: {
    startupMs: { min: 4 * 60_000, max: 6 * 60_000 },
    dbuFactor: 0.7,
    scaleUp: serverlessPace(classicScaleUp),
  },
};

/**
 * The account's serverless scale-up limit for one workload: Databricks caps each serverless workload's cost
 * per hour ("Serverless compute quotas"; the figure is per account). The emulated account allows 32 workers
 * of the compute below (about 45.5 DBUs per hour in performance-optimized mode).
 */
export const serverlessMaxWorkers = 32;

/**
 * The compute Databricks picks for a serverless task, hidden from the workspace (no cluster, no node
 * timeline): Photon on, autoscaling on ("Autoscaling and Photon are automatically enabled"), from one worker
 * up to the scale-up limit, each stage asking for as many workers as its tasks fill (tasks ÷ cores per worker),
 * underused workers removed after about a minute idle.
 */
const serverlessCompute = toSimClusterSpec({
  node_type_id: 'm5d.2xlarge',
  autoscale: { min_workers: 1, max_workers: serverlessMaxWorkers },
  aws_attributes: { availability: 'ON_DEMAND', first_on_demand: serverlessMaxWorkers + 1 },
  runtime_engine: 'PHOTON',
});

/** Task types serverless compute runs (JAR and spark-submit tasks are classic only). */
const serverlessTaskTypes = ['notebook_task', 'spark_python_task', 'python_wheel_task', 'dbt_task'] as const;

/** A task runs on serverless compute when it names an environment, or runs code and names no cluster. */
export function isServerlessTask(task: TaskSettings): boolean {
  if (task.new_cluster || task.job_cluster_key || task.existing_cluster_id) return false;
  const fields = task as Record<string, unknown>;
  if (typeof fields.environment_key === 'string') return true;
  return serverlessTaskTypes.some((type) => fields[type] !== undefined);
}

/** The mode a run uses: the run-now override, else the job's setting, else the default. */
export function effectivePerformanceTarget(
  override: string | undefined,
  setting: string | undefined,
): PerformanceTarget {
  const chosen = override ?? setting;
  return performanceTargets.find((target) => target === chosen) ?? 'PERFORMANCE_OPTIMIZED';
}

/** What a serverless task did: its phases as offsets from when it was ready to start, and the DBUs it used. */
export interface ServerlessExecution {
  performanceTarget: PerformanceTarget;
  startupMs: number;
  executionMs: number;
  outcome: 'SUCCESS' | 'FAILED';
  failureMessage: string | undefined;
  dbus: number;
  /** The most workers the task had at once. */
  peakWorkers: number;
  /** Node-seconds billed: the driver for the whole execution, each worker while it served the task. */
  nodeSeconds: number;
}

/** A span's overlap with [fromMs, toMs]. */
const overlapMs = (startMs: number, endMs: number, fromMs: number, toMs: number) =>
  Math.max(0, Math.min(endMs, toMs) - Math.max(startMs, fromMs));

/** The most executors attached at once between `fromMs` and `toMs`. */
function peakOf(executors: ClusterSimulation['executors'], fromMs: number, toMs: number): number {
  const edges = executors
    .filter((executor) => overlapMs(executor.addedMs, executor.removedMs ?? toMs, fromMs, toMs) > 0)
    .flatMap((executor) => [
      { atMs: Math.max(executor.addedMs, fromMs), change: 1 },
      { atMs: Math.min(executor.removedMs ?? toMs, toMs), change: -1 },
    ])
    .sort((a, b) => a.atMs - b.atMs || a.change - b.change);
  let attached = 0;
  let peak = 0;
  for (const edge of edges) {
    attached += edge.change;
    peak = Math.max(peak, attached);
  }
  return peak;
}

/**
 * Runs one serverless task: the workload on autoscaling compute (the same physics as a job cluster), after the
 * mode's start-up delay, its workers joining at the mode's pace. Billed per DBU-second of what ran: the driver
 * for the execution and each worker from when it joined until it was removed (no start-up, no idle pool).
 */
export function runServerlessTask(
  workload: Workload,
  target: PerformanceTarget,
  context: { seed: number; jobKey: string | number; taskKey: string; runIndex: number; weeksElapsed: number },
): ServerlessExecution {
  const mode = serverlessModes[target];
  const random = createRandom(
    deriveSeed(context.seed, context.jobKey, context.taskKey, context.runIndex, 'serverless-startup'),
  );
  const startupMs = Math.round(
    mode.startupMs.min + random.next() * (mode.startupMs.max - mode.startupMs.min),
  );
  const simulation = simulateCluster(serverlessCompute, [{ workload, label: context.taskKey }], {
    seed: deriveSeed(context.seed, context.jobKey, context.taskKey),
    runIndex: context.runIndex,
    weeksElapsed: context.weeksElapsed,
    scaleUp: mode.scaleUp,
  });
  const segment = simulation.segments[0];
  const fromMs = segment?.startMs ?? simulation.executionStartMs;
  const executionMs = segment ? Math.max(1_000, segment.endMs - segment.startMs) : 1_000;
  const toMs = fromMs + executionMs;
  const workerMs = simulation.executors.reduce(
    (sum, executor) => sum + overlapMs(executor.addedMs, executor.removedMs ?? toMs, fromMs, toMs),
    0,
  );
  const nodeSeconds = (executionMs + workerMs) / 1000;
  const node = serverlessCompute.nodeType;
  const dbusPerNodeSecond = (node.cores * node.dbuPerCoreHour * mode.dbuFactor) / 3600;
  return {
    performanceTarget: target,
    startupMs,
    executionMs,
    outcome: segment?.outcome === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
    failureMessage: segment?.failureMessage,
    dbus: nodeSeconds * dbusPerNodeSecond,
    peakWorkers: peakOf(simulation.executors, fromMs, toMs),
    nodeSeconds,
  };
}
