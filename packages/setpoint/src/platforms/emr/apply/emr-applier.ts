import { ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { AuditService } from '../../../service/audit/audit-service.js';
import { type RolledBackChange, rollbackAuditEntry } from '../../../service/audit/rollback-audit.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { RecommendationService } from '../../../service/recommendations/recommendation-service.js';
import { resumeAutoApply } from '../../../service/recommendations/revert-pause.js';
import type { EmrClient } from '../api/emr-client.js';
import type { ConnectEmrAccount } from '../connection/emr-account.js';
import { applyResize, planClusterResize } from './cluster-resizer.js';
import type { RecommendedConfiguration, ResizeAction, ResizePlan } from './resize-plan.js';

type Client = Pick<
  EmrClient,
  'listSteps' | 'listInstanceGroups' | 'listInstanceFleets' | 'getManagedScalingPolicy'
>;

export type EmrAppliedConfigKind = 'apply' | 'auto-apply' | 'rollback' | 'revert';

/** A change Setpoint made to a long-running cluster, as its apply history records it. */
export interface EmrAppliedConfig {
  id: string;
  projectId: string;
  recommendationId: string | null;
  kind: EmrAppliedConfigKind;
  clusterId: string;
  plan: ResizePlan;
  /** The change a rollback or revert undid. */
  undoes: string | null;
  actor: string;
  reason: string;
  createdAt: number;
}

/** What the applier keeps: the workload's cluster, the apply history and the guardrail state. */
export interface EmrApplyStore {
  workloadOfProject(
    projectId: string,
  ): Promise<{ workspaceId: string; clusterId: string | null } | undefined>;
  appliedConfigs(projectId: string): Promise<EmrAppliedConfig[]>;
  recordAppliedConfig(input: Omit<EmrAppliedConfig, 'id' | 'createdAt'>): Promise<EmrAppliedConfig>;
  guard(projectId: string): Promise<{ paused: boolean; pauseReason: string | null }>;
  saveGuard(projectId: string, values: { paused: boolean; pauseReason: string | null }): Promise<void>;
}

export interface EmrApplyResult {
  /** What was changed and recorded; null when the cluster already matches (nothing changed, no history). */
  config: EmrAppliedConfig | null;
  plan: ResizePlan;
}

/** The long-running cluster a project's workload runs on. */
export async function emrProjectTarget(store: Pick<EmrApplyStore, 'workloadOfProject'>, projectId: string) {
  const workload = await store.workloadOfProject(projectId);
  if (!workload)
    throw new ValidationError(
      'PROJECT_NOT_LINKED',
      `project ${projectId} was not imported from an EMR account; import its workload first`,
    );
  if (!workload.clusterId)
    throw new ConflictError(
      'EMR_TRANSIENT_WORKLOAD',
      `project ${projectId} runs on transient clusters: the next launch takes the recommendation (setpoint export ${projectId} --format emr, or the Airflow hook), there is no running cluster to change`,
    );
  return { workload, clusterId: workload.clusterId };
}

const describeAction = (action: ResizeAction): string =>
  action.kind === 'instance-group'
    ? `task group ${action.instanceGroupId}`
    : action.kind === 'instance-fleet'
      ? `task fleet ${action.instanceFleetId}`
      : 'managed-scaling limits';

/** What the cluster has now where an action wrote. */
async function currentValue(client: Client, clusterId: string, action: ResizeAction): Promise<unknown> {
  switch (action.kind) {
    case 'instance-group':
      return (await client.listInstanceGroups(clusterId)).find((group) => group.Id === action.instanceGroupId)
        ?.RequestedInstanceCount;
    case 'instance-fleet': {
      const fleet = (await client.listInstanceFleets(clusterId)).find(
        (candidate) => candidate.Id === action.instanceFleetId,
      );
      return fleet && { onDemand: fleet.TargetOnDemandCapacity ?? 0, spot: fleet.TargetSpotCapacity ?? 0 };
    }
    case 'managed-scaling':
      return client.getManagedScalingPolicy(clusterId);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  const normal = (value: unknown) =>
    value && typeof value === 'object'
      ? JSON.stringify(
          Object.entries(value)
            .filter(([, entry]) => entry !== undefined)
            .sort(),
        )
      : JSON.stringify(value ?? null);
  return normal(a) === normal(b);
}

/** Actions whose target no longer holds what they wrote: someone else changed the cluster. */
async function changedSince(client: Client, plan: ResizePlan): Promise<string[]> {
  const changed: string[] = [];
  for (const action of plan.actions)
    if (!sameValue(await currentValue(client, plan.clusterId, action), action.to))
      changed.push(describeAction(action));
  return changed;
}

function inverse(plan: ResizePlan): ResizePlan {
  return {
    clusterId: plan.clusterId,
    actions: [...plan.actions]
      .reverse()
      .map((action) => ({ ...action, from: action.to, to: action.from }) as ResizeAction),
  };
}

/** An undo's action as the audit trail shows it: what it resized, from → to. */
const rolledBackChange = (action: ResizeAction): RolledBackChange => ({
  what: describeAction(action),
  from: action.from,
  to: action.to,
});

const isChange = (config: EmrAppliedConfig) => config.kind === 'apply' || config.kind === 'auto-apply';

/**
 * Resizes long-running clusters to recommendations (task counts or fleet targets and managed-scaling
 * limits, with the resize guardrails), records every change with its before and after, rolls changes
 * back, and notices when someone else changed what Setpoint wrote (auto-apply then pauses).
 */
export function createEmrApplier(deps: {
  connect: ConnectEmrAccount;
  store: EmrApplyStore;
  projects: Pick<ProjectService, 'get'>;
  recommendations: Pick<RecommendationService, 'get' | 'recordAutoApplied'>;
  /** Rollbacks and reverts are audited with each setting from → to. */
  audit: Pick<AuditService, 'record'>;
}) {
  /** Changes Setpoint made that are still in place (not undone by a rollback or revert), oldest first. */
  async function standing(projectId: string): Promise<EmrAppliedConfig[]> {
    const history = await deps.store.appliedConfigs(projectId);
    const undone = new Set(history.map((config) => config.undoes).filter((id) => id !== null));
    return history.filter((config) => isChange(config) && !undone.has(config.id));
  }

  /** Compares the cluster with Setpoint's standing changes; a difference pauses auto-apply. */
  async function checkExternalChange(projectId: string): Promise<string[]> {
    const { workload } = await emrProjectTarget(deps.store, projectId);
    const latest = (await standing(projectId)).at(-1);
    if (!latest) return [];
    const { client } = await deps.connect(workload.workspaceId);
    const changed = await changedSince(client, latest.plan);
    if (changed.length > 0)
      await deps.store.saveGuard(projectId, {
        paused: true,
        pauseReason: `the cluster was changed outside Setpoint (${changed.join(', ')})`,
      });
    return changed;
  }

  async function apply(
    projectId: string,
    recommendationId: string,
    options: { actor: string; kind: 'apply' | 'auto-apply' },
  ): Promise<EmrApplyResult> {
    const rec = await deps.recommendations.get(projectId, recommendationId);
    if (rec.state !== 'SUCCESS' || !rec.configuration)
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${recommendationId} is ${rec.state}; only a SUCCESS recommendation can be applied`,
      );
    const { workload, clusterId } = await emrProjectTarget(deps.store, projectId);
    if (options.kind === 'auto-apply') {
      const guard = await deps.store.guard(projectId);
      if (guard.paused)
        throw new ConflictError(
          'AUTO_APPLY_PAUSED',
          `auto-apply is paused for project ${projectId}: ${guard.pauseReason ?? 'paused'}`,
        );
    }
    const changed = await checkExternalChange(projectId);
    if (changed.length > 0 && options.kind === 'auto-apply')
      throw new ConflictError(
        'EXTERNAL_CHANGE',
        `cluster ${clusterId} was changed outside Setpoint (${changed.join(', ')}); auto-apply is paused until a user resumes it`,
      );
    const { client } = await deps.connect(workload.workspaceId);
    const plan = await planClusterResize(
      client,
      clusterId,
      rec.configuration as unknown as RecommendedConfiguration,
    );
    if (rec.decision?.action === 'keep' || plan.actions.length === 0) return { config: null, plan };
    await applyResize(client, plan);
    const config = await deps.store.recordAppliedConfig({
      projectId,
      recommendationId,
      kind: options.kind,
      clusterId,
      plan,
      undoes: null,
      actor: options.actor,
      reason: rec.explanation ?? `recommendation ${recommendationId}`,
    });
    if (options.kind === 'auto-apply')
      await deps.recommendations.recordAutoApplied(projectId, recommendationId, options.actor);
    return { config, plan };
  }

  /**
   * Undoes Setpoint's changes, newest first: the latest one, or every one made after `toConfigId`. Each
   * undo is recorded; a change someone else has since overwritten is not undone (409, nothing changed).
   */
  async function rollback(
    projectId: string,
    options: {
      toConfigId?: string | undefined;
      actor: string;
      kind?: Extract<EmrAppliedConfigKind, 'rollback' | 'revert'>;
      reason?: string;
    },
  ): Promise<EmrAppliedConfig[]> {
    const { workload } = await emrProjectTarget(deps.store, projectId);
    const history = await deps.store.appliedConfigs(projectId);
    const changes = await standing(projectId);
    let undo: EmrAppliedConfig[];
    if (options.toConfigId) {
      const target = history.find((config) => config.id === options.toConfigId);
      if (!target)
        throw new NotFoundError(
          'NO_EARLIER_CONFIG',
          `project ${projectId} has no applied configuration ${options.toConfigId}`,
        );
      undo = changes.filter(
        (config) =>
          config.createdAt > target.createdAt ||
          (config.createdAt === target.createdAt && config.id > target.id),
      );
    } else undo = changes.slice(-1);
    if (undo.length === 0)
      throw new NotFoundError(
        'NO_EARLIER_CONFIG',
        `project ${projectId} has no change of Setpoint's to roll back`,
      );
    const { client } = await deps.connect(workload.workspaceId);
    let stepRunning = false;
    for await (const step of client.listSteps(undo[0]?.clusterId ?? ''))
      if (step.Status.State === 'RUNNING') stepRunning = true;
    const undoOne = async (config: EmrAppliedConfig): Promise<EmrAppliedConfig> => {
      const plan = inverse(config.plan);
      // The cluster already holds what the undo writes: an earlier try wrote it and was not recorded (its
      // response was lost, or recording failed). Record it now instead of refusing it as an outside change.
      if ((await changedSince(client, plan)).length === 0) return recordUndo(config, plan);
      const changed = await changedSince(client, config.plan);
      if (changed.length > 0)
        throw new ConflictError(
          'EMR_CHANGED_OUTSIDE',
          `cannot roll back ${config.id}: ${changed.join(', ')} of cluster ${config.clusterId} changed outside Setpoint since`,
        );
      const shrinks = plan.actions.some(
        (action) =>
          (action.kind === 'instance-group' && action.to < action.from) ||
          (action.kind === 'instance-fleet' &&
            action.to.onDemand + action.to.spot < action.from.onDemand + action.from.spot),
      );
      if (shrinks && stepRunning)
        throw new ConflictError(
          'EMR_APPLY_REFUSED',
          `cluster ${config.clusterId} is running a step: task instances are not removed under it; roll back when it is idle`,
        );
      await applyResize(client, plan);
      return recordUndo(config, plan);
    };
    const recordUndo = (config: EmrAppliedConfig, plan: ResizePlan) =>
      deps.store.recordAppliedConfig({
        projectId,
        recommendationId: config.recommendationId,
        kind: options.kind ?? 'rollback',
        clusterId: config.clusterId,
        plan,
        undoes: config.id,
        actor: options.actor,
        reason: options.reason ?? `undid the change of ${new Date(config.createdAt).toISOString()}`,
      });
    const recorded: EmrAppliedConfig[] = [];
    try {
      for (const config of [...undo].reverse()) recorded.push(await undoOne(config));
    } finally {
      // What was undone is audited even when a later undo is refused.
      if (recorded.length > 0)
        await deps.audit.record(
          rollbackAuditEntry({
            projectId,
            actor: options.actor,
            kind: options.kind ?? 'rollback',
            platform: 'emr',
            fromConfigId: undo.at(-1)?.id ?? null,
            toConfigId: options.toConfigId ?? null,
            changes: recorded.flatMap((config) => config.plan.actions.map(rolledBackChange)),
            reason: recorded.map((config) => config.reason).join('; '),
          }),
        );
    }
    return recorded;
  }

  return {
    apply,
    rollback,
    checkExternalChange,
    standing,
    history: (projectId: string) => deps.store.appliedConfigs(projectId),
    resumeAutoApply: (projectId: string, actor: string) =>
      resumeAutoApply({ store: deps.store, audit: deps.audit }, { projectId, platform: 'emr', actor }),
  };
}

export type EmrApplier = ReturnType<typeof createEmrApplier>;
