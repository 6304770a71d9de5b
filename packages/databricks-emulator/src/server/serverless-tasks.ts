import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import { toSimClusterSpec } from '../physics/cluster-spec.js';
import { simulateCluster } from '../physics/simulate-cluster.js';
import type { Workload } from '../workloads/schema.js';
import { type PerformanceTarget, performanceTargets, type TaskSettings } from './schema.js';

/**
 * How each mode behaves, as Databricks documents it ("Serverless performance modes"): performance-optimized
 * compute is kept warm and starts in under a minute; standard starts in about 4 to 6 minutes and consumes
 * fewer DBUs for the same work, at the same price per DBU and SKU. The emulator's standard mode uses 30 %
 * fewer DBUs on the same compute, so the work itself takes as long in both modes.
 */
export const serverlessModes: Record<
  PerformanceTarget,
  { startupMs: { min: number; max: number }; dbuFactor: number }
> = {
  PERFORMANCE_OPTIMIZED: { startupMs: { min: 10_000, max: 50_000 }, dbuFactor: 1 },
  STANDARD: { startupMs: { min: 4 * 60_000, max: 6 * 60_000 }, dbuFactor: 0.7 },
};

/** The compute Databricks picks for a serverless task: hidden from the workspace (no cluster, no node timeline). */
const serverlessCompute = toSimClusterSpec({
  node_type_id: 'm5d.2xlarge',
  num_workers: 8,
  aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 9 },
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
}

/**
 * Runs one serverless task: the workload on the hidden compute (the same physics as a job cluster, so the
 * same work takes as long), after the mode's start-up delay; DBUs are billed for the execution only.
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
  });
  const segment = simulation.segments[0];
  const executionMs = segment ? Math.max(1_000, segment.endMs - segment.startMs) : 1_000;
  const nodes = serverlessCompute.workers.kind === 'fixed' ? serverlessCompute.workers.count + 1 : 1;
  const node = serverlessCompute.nodeType;
  const dbusPerHour = nodes * node.cores * node.dbuPerCoreHour * mode.dbuFactor;
  return {
    performanceTarget: target,
    startupMs,
    executionMs,
    outcome: segment?.outcome === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
    failureMessage: segment?.failureMessage,
    dbus: (dbusPerHour * executionMs) / 3_600_000,
  };
}
