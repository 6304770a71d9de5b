import { ValidationError } from '@setpoint/foundation/errors';
import type { ApplyWriter, PlannedWrite } from '../../../service/apply/apply-writer.js';
import type { Project } from '../../../service/projects/project-records.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import {
  defaultPerformanceTarget,
  describePerformanceTarget,
  type PerformanceTarget,
  performanceTargetOf,
  performanceTargets,
  serverlessProjectKey,
} from './serverless-tasks.js';

/** A job whose serverless tasks a project advises: what Setpoint writes there is the job's performance mode. */
export interface ServerlessTarget {
  kind: 'serverless';
  workspaceId: string;
  jobId: string;
}

const field = 'performance_target';

function targetOf(configuration: Record<string, unknown>): PerformanceTarget {
  const value = configuration[field];
  if (!performanceTargets.some((target) => target === value))
    throw new ValidationError(
      'PERFORMANCE_TARGET_INVALID',
      `a serverless job's performance_target is PERFORMANCE_OPTIMIZED or STANDARD, not ${JSON.stringify(value)}`,
    );
  return value as PerformanceTarget;
}

/**
 * The apply core's writer for serverless jobs: it writes `performance_target` into the job's settings with
 * jobs/update (a top-level field: nothing else of the job is sent) and records it as the configuration, so
 * history, rollback, the SLA guard's revert and edits made outside Setpoint work as for a cluster.
 */
export function createServerlessWriter(connect: ConnectWorkspace) {
  async function current(target: ServerlessTarget): Promise<PerformanceTarget> {
    const { client } = await connect(target.workspaceId);
    return performanceTargetOf((await client.getJob(target.jobId)).settings.performance_target);
  }

  async function plan(target: ServerlessTarget, to: PerformanceTarget): Promise<PlannedWrite> {
    const from = await current(target);
    return {
      configuration: { [field]: to },
      changes: from === to ? [] : [{ what: field, from, to }],
      undoes: null,
    };
  }

  return {
    async locate(project: Project) {
      if (!project.workspaceId || !project.jobId)
        return {
          refusal: new ValidationError('PROJECT_NOT_LINKED', `project ${project.id} is not linked to a job`),
        };
      return {
        target: { kind: 'serverless' as const, workspaceId: project.workspaceId, jobId: project.jobId },
        description: `job ${project.jobId} (serverless)`,
      };
    },
    async changedOutside(
      target: ServerlessTarget,
      { history }: { history: readonly { configuration: Record<string, unknown> }[] },
    ) {
      const last = history.at(-1);
      if (!last) return null;
      const found = await current(target);
      return performanceTargetOf(last.configuration[field]) === found
        ? null
        : { fields: [field], found: { [field]: found } };
    },
    planApply: (target: ServerlessTarget, recommendation: { configuration: Record<string, unknown> }) =>
      plan(target, targetOf(recommendation.configuration)),
    async planUndo(
      target: ServerlessTarget,
      undo: { to: { configuration: Record<string, unknown> } | null },
    ) {
      return [
        await plan(
          target,
          undo.to ? performanceTargetOf(undo.to.configuration[field]) : defaultPerformanceTarget,
        ),
      ];
    },
    async holds(target: ServerlessTarget, planned: PlannedWrite) {
      return (await current(target)) === targetOf(planned.configuration);
    },
    async write(target: ServerlessTarget, planned: PlannedWrite) {
      const { client } = await connect(target.workspaceId);
      await client.updateJob(target.jobId, { [field]: targetOf(planned.configuration) });
    },
    async export(project: Project, recommendation: { configuration: Record<string, unknown> | null }) {
      const to = targetOf(recommendation.configuration ?? {});
      return `${JSON.stringify({ job_id: project.jobId, new_settings: { [field]: to } }, null, 2)}\n`;
    },
    describe(configuration: Record<string, unknown>) {
      return {
        cluster: configuration,
        summary: `performance mode: ${describePerformanceTarget(performanceTargetOf(configuration[field]))}`,
      };
    },
  };
}

type Target<T> = T extends ApplyWriter<infer U> ? U : never;

/**
 * Databricks' writer with its serverless jobs: a project of a job's serverless tasks is written by the
 * serverless writer (its performance mode), every other by the cluster writer.
 */
export function withServerlessJobs<W extends ApplyWriter<object>>(
  clusters: W,
  serverless: ReturnType<typeof createServerlessWriter>,
): ApplyWriter<Target<W> | ServerlessTarget> {
  type Either = Target<W> | ServerlessTarget;
  const isServerless = (target: Either): target is ServerlessTarget =>
    (target as Partial<ServerlessTarget>).kind === 'serverless';
  const cluster = clusters as unknown as ApplyWriter<Target<W>>;
  return {
    platform: clusters.platform,
    defaultExportFormat: clusters.defaultExportFormat,
    locate: (project) =>
      project.clusterKey === serverlessProjectKey ? serverless.locate(project) : cluster.locate(project),
    changedOutside: (target: Either, record) =>
      isServerless(target)
        ? serverless.changedOutside(target, record)
        : cluster.changedOutside(target, record),
    planApply: (target: Either, recommendation, project) =>
      isServerless(target)
        ? serverless.planApply(target, recommendation)
        : cluster.planApply(target, recommendation, project),
    planUndo: (target: Either, undo) =>
      isServerless(target) ? serverless.planUndo(target, undo) : cluster.planUndo(target, undo),
    holds: (target: Either, planned) =>
      isServerless(target) ? serverless.holds(target, planned) : cluster.holds(target, planned),
    validate: (target: Either, planned) =>
      isServerless(target) ? Promise.resolve() : (cluster.validate?.(target, planned) ?? Promise.resolve()),
    write: (target: Either, planned) =>
      isServerless(target) ? serverless.write(target, planned) : cluster.write(target, planned),
    export: (project, recommendation, format) =>
      project.clusterKey === serverlessProjectKey
        ? serverless.export(project, recommendation)
        : cluster.export(project, recommendation, format),
    describe: (configuration) =>
      'performance_target' in configuration && !('node_type_id' in configuration)
        ? serverless.describe(configuration)
        : cluster.describe(configuration),
  };
}
