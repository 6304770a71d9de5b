/**
 * Serverless jobs in the Jobs API: a task runs on serverless compute when it names one of the job's
 * `environments` (`environment_key`), or runs code (a notebook, a Python script or wheel, dbt) without naming
 * any cluster. JAR and spark-submit tasks are classic only; tasks that run no code of their own (conditions,
 * other jobs, SQL on a warehouse, pipelines) use no job compute at all.
 */
const serverlessTaskTypes = ['notebook_task', 'spark_python_task', 'python_wheel_task', 'dbt_task'] as const;

/** The project key of a job's serverless tasks: one project per job, as its performance mode is the job's. */
export const serverlessProjectKey = 'serverless';

/** The Jobs API's performance modes; performance-optimized is the default for jobs however they were created. */
export const performanceTargets = ['PERFORMANCE_OPTIMIZED', 'STANDARD'] as const;
export type PerformanceTarget = (typeof performanceTargets)[number];
export const defaultPerformanceTarget: PerformanceTarget = 'PERFORMANCE_OPTIMIZED';

/** A task of job settings or of a run (both are read loosely: task types are many and keep growing). */
export function isServerlessTask(task: object): boolean {
  const fields = task as Record<string, unknown>;
  if (fields.new_cluster || fields.job_cluster_key || fields.existing_cluster_id) return false;
  if (typeof fields.environment_key === 'string' && fields.environment_key.length > 0) return true;
  return serverlessTaskTypes.some((type) => fields[type] !== undefined && fields[type] !== null);
}

/** A mode as the Jobs API or the bill spells it; anything else (absent, unspecified) is the default. */
export function performanceTargetOf(value: unknown): PerformanceTarget {
  return performanceTargets.find((target) => target === value) ?? defaultPerformanceTarget;
}

/** "performance optimized", "standard": the mode in words. */
export function describePerformanceTarget(target: PerformanceTarget): string {
  return target === 'STANDARD' ? 'standard' : 'performance optimized';
}
