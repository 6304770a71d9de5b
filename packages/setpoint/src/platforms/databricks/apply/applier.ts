import { ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { externalChangeAction } from '../../../service/alerts/alert-service.js';
import type { AuditService } from '../../../service/audit/audit-service.js';
import { rollbackAuditEntry } from '../../../service/audit/rollback-audit.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { RecommendationService } from '../../../service/recommendations/recommendation-service.js';
import { resumeAutoApply as resumeAutoApplyOf } from '../../../service/recommendations/revert-pause.js';
import type { NewClusterSpec } from '../api/schema.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { buildClusterUpdate } from '../jobs/apply-cluster-change.js';
import {
  describeClusterRef,
  findClusterSpec,
  type JobClusterRef,
  parseClusterRefKey,
} from '../jobs/job-clusters.js';
import {
  diffManagedFields,
  type FieldDifference,
  type ManagedClusterFields,
  managedFieldsOf,
} from '../jobs/managed-fields.js';
import { recommendationTagKey } from '../jobs/onboarding.js';
import type { AppliedConfig, DatabricksRepository } from '../store/databricks-repository.js';
import type { AppliedConfigKind } from '../store/databricks-tables.js';
import { checkBeforeWrite } from '../validity/write-check.js';

export interface ApplierDependencies {
  connect: ConnectWorkspace;
  store: DatabricksRepository;
  projects: Pick<ProjectService, 'get'>;
  recommendations: Pick<RecommendationService, 'get' | 'recordAutoApplied'>;
  /**
   * Edits found in the job, made outside Setpoint, are audited as `external_change` (alerts watch it);
   * rollbacks and reverts as `rollback` / `revert` with each setting from → to.
   */
  audit: Pick<AuditService, 'record'>;
}

/** `newSettings` holds `next` itself, so tagging it here changes what jobs/update sends. */
function tagRecommendation(next: NewClusterSpec, recommendationId: string | null): void {
  const tags: Record<string, string> = { ...next.custom_tags };
  if (recommendationId) tags[recommendationTagKey] = recommendationId;
  else delete tags[recommendationTagKey];
  if (Object.keys(tags).length > 0) next.custom_tags = tags;
  else delete next.custom_tags;
}

/** A configuration Setpoint wrote from a recommendation (not an undo, nor what it found in the job). */
const isChange = (config: AppliedConfig | undefined) =>
  config?.kind === 'apply' || config?.kind === 'auto-apply';

/** The job cluster a project optimizes. */
export async function projectTarget(projects: Pick<ProjectService, 'get'>, projectId: string) {
  const project = await projects.get(projectId);
  const ref = project.clusterKey ? parseClusterRefKey(project.clusterKey) : undefined;
  if (!project.workspaceId || !project.jobId || !ref) {
    throw new ValidationError(
      'PROJECT_NOT_LINKED',
      `project ${projectId} is not linked to a Databricks job cluster; import the job first`,
    );
  }
  return { project, workspaceId: project.workspaceId, jobId: project.jobId, ref };
}

export interface ApplyResult {
  /** What was written and recorded; null when the job already runs it (nothing written, no history). */
  config: AppliedConfig | null;
  changedFields: string[];
}

export interface RollbackResult extends ApplyResult {
  config: AppliedConfig;
}

/**
 * Writes configurations into the job (the whole cluster entry, only managed fields changed) and
 * records each one, so any can be rolled back to and edits by others are recognised.
 */
export function createApplier(deps: ApplierDependencies) {
  async function currentSpec(workspaceId: string, jobId: string, ref: JobClusterRef) {
    const connection = await deps.connect(workspaceId);
    const { client } = connection;
    const job = await client.getJob(jobId);
    const spec = findClusterSpec(job.settings, ref);
    if (!spec)
      throw new NotFoundError(
        'JOB_CLUSTER_NOT_FOUND',
        `job ${jobId} has no ${describeClusterRef(ref)} any more`,
      );
    return { connection, client, job, spec };
  }

  /** Managed fields that differ from what Setpoint last wrote: someone else changed the cluster. */
  async function externalChanges(projectId: string, spec: NewClusterSpec): Promise<string[]> {
    return (await differencesFromRecord(projectId, spec)).map((difference) => difference.field);
  }

  /** How `spec` differs from what Setpoint last recorded for the project (before: recorded, after: spec). */
  async function differencesFromRecord(projectId: string, spec: NewClusterSpec): Promise<FieldDifference[]> {
    const last = (await deps.store.appliedConfigs(projectId)).at(-1);
    return last ? diffManagedFields(last.clusterSpec, spec) : [];
  }

  async function recordExternalChange(
    projectId: string,
    spec: NewClusterSpec,
    fields: string[],
  ): Promise<void> {
    await deps.store.recordAppliedConfig({
      projectId,
      recommendationId: null,
      kind: 'baseline',
      clusterSpec: spec,
      actor: 'external',
      reason: `changed outside Setpoint: ${fields.join(', ')}`,
    });
    await deps.store.saveGuard(projectId, {
      paused: true,
      pauseReason: `the cluster was changed outside Setpoint (${fields.join(', ')})`,
    });
    await deps.audit.record({
      entity: 'project',
      entityId: projectId,
      action: externalChangeAction,
      actor: 'external',
      detail: { fields, auto_apply: 'paused' },
    });
  }

  /** Compares the job's cluster with what Setpoint last wrote; a difference is recorded and pauses auto-apply. */
  async function checkExternalChange(projectId: string): Promise<string[]> {
    const target = await projectTarget(deps.projects, projectId);
    const { spec } = await currentSpec(target.workspaceId, target.jobId, target.ref);
    const fields = await externalChanges(projectId, spec);
    if (fields.length > 0) await recordExternalChange(projectId, spec, fields);
    return fields;
  }

  async function write(
    projectId: string,
    managed: ManagedClusterFields,
    options: {
      kind: AppliedConfigKind;
      actor: string;
      reason: string;
      recommendationId: string | null;
      maintainScalingType: boolean;
      /** Apply: a configuration the job already has writes nothing (no jobs/update, no history entry). */
      skipWhenUnchanged: boolean;
    },
  ): Promise<ApplyResult & { differences: FieldDifference[] }> {
    const target = await projectTarget(deps.projects, projectId);
    const { connection, client, job, spec } = await currentSpec(target.workspaceId, target.jobId, target.ref);
    const update = buildClusterUpdate(job.settings, target.ref, managed, {
      maintainScalingType: options.maintainScalingType,
    });
    const written = diffManagedFields(update.previous, update.next);
    // An undo whose configuration the job already holds: an earlier try wrote it and was not recorded (its
    // answer was lost, or recording failed). It is recorded now, not taken for an edit made outside Setpoint,
    // and what it changed is told from Setpoint's record, as if this try had written it.
    const alreadyWritten = written.length === 0 && (options.kind === 'rollback' || options.kind === 'revert');
    const differences = alreadyWritten ? await differencesFromRecord(projectId, update.next) : written;
    const changedFields = differences.map((difference) => difference.field);
    const changedOutside = alreadyWritten ? [] : await externalChanges(projectId, spec);
    if (changedOutside.length > 0) {
      await recordExternalChange(projectId, spec, changedOutside);
      // an automatic write never overwrites a person's edit: auto-apply is paused and a revert is refused
      if (options.kind === 'auto-apply' || options.kind === 'revert') {
        const refused =
          options.kind === 'revert' ? 'the revert is not written; roll back by hand if still wanted, ' : '';
        throw new ConflictError(
          'EXTERNAL_CHANGE',
          `job ${target.jobId} was changed outside Setpoint (${changedOutside.join(', ')}); ${refused}auto-apply is paused until a user resumes it`,
        );
      }
    }
    if (changedFields.length === 0 && options.skipWhenUnchanged)
      return { config: null, changedFields, differences };
    if (!alreadyWritten)
      await checkBeforeWrite(connection, update.next, `the ${options.kind} of job ${target.jobId}`, spec);
    tagRecommendation(update.next, options.recommendationId);
    if (!alreadyWritten) await client.updateJob(target.jobId, update.newSettings);
    const config = await deps.store.recordAppliedConfig({
      projectId,
      recommendationId: options.recommendationId,
      kind: options.kind,
      clusterSpec: update.next,
      actor: options.actor,
      reason: options.reason,
    });
    return { config, changedFields, differences };
  }

  async function apply(
    projectId: string,
    recommendationId: string,
    options: { actor: string; kind: 'apply' | 'auto-apply' },
  ): Promise<ApplyResult> {
    const rec = await deps.recommendations.get(projectId, recommendationId);
    if (rec.state !== 'SUCCESS' || !rec.configuration) {
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${recommendationId} is ${rec.state}; only a SUCCESS recommendation can be applied`,
      );
    }
    const { project } = await projectTarget(deps.projects, projectId);
    if (options.kind === 'auto-apply') {
      const guard = await deps.store.guard(projectId);
      if (guard.paused)
        throw new ConflictError(
          'AUTO_APPLY_PAUSED',
          `auto-apply is paused for project ${projectId}: ${guard.pauseReason ?? 'paused'}`,
        );
    }
    // A recommendation to keep the cluster changes nothing: no jobs/update, no history entry.
    if (rec.decision?.action === 'keep') return { config: null, changedFields: [] };
    const result = await write(projectId, managedFieldsOf(rec.configuration), {
      kind: options.kind,
      actor: options.actor,
      reason: rec.explanation ?? `recommendation ${recommendationId}`,
      recommendationId,
      maintainScalingType: project.settings.maintainScalingType,
      skipWhenUnchanged: true,
    });
    if (result.config && options.kind === 'auto-apply') {
      await deps.recommendations.recordAutoApplied(projectId, recommendationId, options.actor);
    }
    return result;
  }

  /** Back to an earlier applied configuration (default: the one before the current). */
  async function rollback(
    projectId: string,
    options: {
      toConfigId?: string | undefined;
      actor: string;
      kind?: 'rollback' | 'revert';
      reason?: string;
    },
  ): Promise<RollbackResult> {
    const configs = await deps.store.appliedConfigs(projectId);
    const target = options.toConfigId
      ? configs.find((config) => config.id === options.toConfigId)
      : configs.at(-2);
    if (!target) {
      throw new NotFoundError(
        'NO_EARLIER_CONFIG',
        options.toConfigId
          ? `project ${projectId} has no applied configuration ${options.toConfigId}`
          : `project ${projectId} has no earlier configuration to roll back to`,
      );
    }
    const kind = options.kind ?? 'rollback';
    // shown under the kind's label ("Rolled back"), so it names only the target
    const reason = options.reason ?? `to the configuration of ${new Date(target.createdAt).toISOString()}`;
    const { differences, ...result } = await write(projectId, managedFieldsOf(target.clusterSpec), {
      kind,
      actor: options.actor,
      reason,
      recommendationId: target.recommendationId,
      maintainScalingType: false,
      skipWhenUnchanged: false,
    });
    await deps.audit.record(
      rollbackAuditEntry({
        projectId,
        actor: options.actor,
        kind,
        platform: 'databricks',
        fromConfigId: configs.at(-1)?.id ?? null,
        toConfigId: target.id,
        changes: differences.map((difference) => ({
          what: difference.field,
          from: difference.before,
          to: difference.after,
        })),
        reason,
      }),
    );
    return result as RollbackResult;
  }

  /** Changes Setpoint made that are still in place, oldest first: those after the last rollback, revert or baseline. */
  async function standing(projectId: string): Promise<AppliedConfig[]> {
    const history = await deps.store.appliedConfigs(projectId);
    let first = history.length;
    while (first > 0 && isChange(history[first - 1])) first -= 1;
    return history.slice(first);
  }

  async function resumeAutoApply(projectId: string, actor: string): Promise<void> {
    await resumeAutoApplyOf(
      { store: deps.store, audit: deps.audit },
      { projectId, platform: 'databricks', actor },
    );
  }

  return {
    apply,
    rollback,
    standing,
    resumeAutoApply,
    checkExternalChange,
    history: (projectId: string) => deps.store.appliedConfigs(projectId),
  };
}

export type Applier = ReturnType<typeof createApplier>;
