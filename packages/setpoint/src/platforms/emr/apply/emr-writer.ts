import { ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { ApplyWriter, PlannedWrite, SettingChange } from '../../../service/apply/apply-writer.js';
import type { EmrClient } from '../api/emr-client.js';
import type { ComputeLimits } from '../api/schema.js';
import type { ConnectEmrAccount } from '../connection/emr-account.js';
import type { ExportEmrRecommendation } from '../export/emr-export-service.js';
import type { EmrRepository } from '../store/emr-repository.js';
import { assertEmrAccepted } from '../validity/accepted-request.js';
import { applyResize, planClusterResize } from './cluster-resizer.js';
import type { RecommendedConfiguration, ResizeAction, ResizePlan } from './resize-plan.js';
import { resizeRequestsOf } from './resize-requests.js';

type Client = Pick<
  EmrClient,
  'describeCluster' | 'listSteps' | 'listInstanceGroups' | 'listInstanceFleets' | 'getManagedScalingPolicy'
>;

/** The long-running cluster a project's workload runs on. */
export interface EmrTarget {
  projectId: string;
  workspaceId: string;
  clusterId: string;
}

/** Where an action resized, as the audit trail and the history name it. */
const describeTarget = (action: ResizeAction): string =>
  action.kind === 'instance-group'
    ? `task group ${action.instanceGroupId}`
    : action.kind === 'instance-fleet'
      ? `task fleet ${action.instanceFleetId}`
      : 'managed-scaling limits';

/** One action in a line: "ig-1: 22 → 8 instances". */
function describeAction(action: ResizeAction): string {
  if (action.kind === 'instance-group')
    return `${action.instanceGroupId}: ${action.from} → ${action.to} instances`;
  if (action.kind === 'instance-fleet')
    return `${action.instanceFleetId}: ${action.from.onDemand}+${action.from.spot} → ${action.to.onDemand}+${action.to.spot} (on-demand+spot units)`;
  const limits = (value: ComputeLimits | null) =>
    value ? `${value.MinimumCapacityUnits}–${value.MaximumCapacityUnits} ${value.UnitType}` : 'none';
  return `managed scaling ${limits(action.from)} → ${limits(action.to)}`;
}

/** An action as the API shows it (snake_case). */
export function presentAction(action: ResizeAction) {
  switch (action.kind) {
    case 'instance-group':
      return {
        kind: action.kind,
        instance_group_id: action.instanceGroupId,
        from: action.from,
        to: action.to,
      };
    case 'instance-fleet':
      return {
        kind: action.kind,
        instance_fleet_id: action.instanceFleetId,
        from: { on_demand: action.from.onDemand, spot: action.from.spot },
        to: { on_demand: action.to.onDemand, spot: action.to.spot },
      };
    case 'managed-scaling':
      return { kind: action.kind, from: action.from, to: action.to };
  }
}

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
      changed.push(describeTarget(action));
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

const planOf = (configuration: Record<string, unknown>) => configuration as unknown as ResizePlan;

function planned(plan: ResizePlan, undoes: PlannedWrite['undoes']): PlannedWrite {
  const changes: SettingChange[] = plan.actions.map((action) => ({
    what: describeTarget(action),
    from: action.from,
    to: action.to,
  }));
  return { configuration: plan as unknown as Record<string, unknown>, changes, undoes };
}

const shrinks = (plan: ResizePlan) =>
  plan.actions.some(
    (action) =>
      (action.kind === 'instance-group' && action.to < action.from) ||
      (action.kind === 'instance-fleet' &&
        action.to.onDemand + action.to.spot < action.from.onDemand + action.from.spot),
  );

/**
 * EMR's writer: it resizes a long-running cluster to a recommendation (task counts or fleet targets and
 * managed-scaling limits, under the resize guardrails) and records each resize with its before and after,
 * so a change is undone on its own and a change someone else made since is noticed. A transient cluster
 * takes the recommendation at its next launch (`export`), so Setpoint writes nothing there; a launch that
 * took one is recorded as found (`launchRecordOf`, `ApplyService.recordLaunch`).
 */
export function createEmrWriter(deps: {
  connect: ConnectEmrAccount;
  store: Pick<EmrRepository, 'workloadOfProject'>;
  /** Whether the project is an EMR Serverless job (monitored: EMR Serverless sizes its workers). */
  isServerlessJob?: (projectId: string) => Promise<boolean>;
  exportRecommendation: ExportEmrRecommendation;
}): ApplyWriter<EmrTarget> {
  const clientOf = async (target: EmrTarget) => (await deps.connect(target.workspaceId)).client;

  return {
    platform: 'emr',
    defaultExportFormat: 'json',

    async locate(project) {
      const workload = await deps.store.workloadOfProject(project.id);
      if (!workload && (await deps.isServerlessJob?.(project.id)))
        return {
          refusal: new ConflictError(
            'EMR_SERVERLESS_MONITORED',
            `project "${project.name}" runs on EMR Serverless, which sizes its workers itself: Setpoint monitors and advises it and writes nothing`,
          ),
        };
      if (!workload)
        return {
          refusal: new ValidationError(
            'PROJECT_NOT_LINKED',
            `project "${project.name}" was not imported from an EMR account; import its workload first`,
          ),
        };
      if (!workload.clusterId)
        return {
          refusal: new ConflictError(
            'EMR_TRANSIENT_WORKLOAD',
            `project "${project.name}" runs on transient clusters: the next launch takes the recommendation (setpoint export ${project.id} --format emr, or the Airflow hook), there is no running cluster to change`,
          ),
        };
      return {
        target: { projectId: project.id, workspaceId: workload.workspaceId, clusterId: workload.clusterId },
        description: `cluster ${workload.clusterId}`,
      };
    },

    async changedOutside(target, { standing }) {
      const latest = standing.at(-1);
      if (!latest) return null;
      const fields = await changedSince(await clientOf(target), planOf(latest.configuration));
      return fields.length > 0 ? { fields, found: null } : null;
    },

    async planApply(target, recommendation) {
      const plan = await planClusterResize(
        await clientOf(target),
        target.clusterId,
        recommendation.configuration as unknown as RecommendedConfiguration,
      );
      return planned(plan, null);
    },

    async planUndo(target, { undo }) {
      if (undo.length === 0)
        throw new NotFoundError(
          'NO_EARLIER_CONFIG',
          `project ${target.projectId} has no change of Setpoint's to roll back`,
        );
      return [...undo].reverse().map((change) => planned(inverse(planOf(change.configuration)), change));
    },

    async holds(target, write) {
      return (await changedSince(await clientOf(target), planOf(write.configuration))).length === 0;
    },

    /**
     * EMR's validity contract, right before the resize: every request the write sends, checked as botocore
     * and the service check it, against the cluster as it is now (its collection type decides the managed
     * scaling units). A request EMR would refuse throws `EMR_REQUEST_INVALID` naming each rule; nothing is
     * sent or recorded.
     */
    async validate(target, planned) {
      const cluster = await (await clientOf(target)).describeCluster(target.clusterId);
      assertEmrAccepted(
        resizeRequestsOf(planOf(planned.configuration)),
        {
          collectionType: cluster.InstanceCollectionType ?? null,
          releaseLabel: cluster.ReleaseLabel ?? null,
        },
        `the resize of cluster ${target.clusterId}`,
      );
    },

    async write(target, write) {
      const client = await clientOf(target);
      const plan = planOf(write.configuration);
      if (write.undoes) {
        const undone = planOf(write.undoes.configuration);
        const changed = await changedSince(client, undone);
        if (changed.length > 0)
          throw new ConflictError(
            'EMR_CHANGED_OUTSIDE',
            `cannot roll back ${write.undoes.id}: ${changed.join(', ')} of cluster ${undone.clusterId} changed outside Setpoint since`,
          );
        let stepRunning = false;
        for await (const step of client.listSteps(plan.clusterId))
          if (step.Status.State === 'RUNNING') stepRunning = true;
        if (shrinks(plan) && stepRunning)
          throw new ConflictError(
            'EMR_APPLY_REFUSED',
            `cluster ${plan.clusterId} is running a step: task instances are not removed under it; roll back when it is idle`,
          );
      }
      await applyResize(client, plan);
    },

    export: (project, recommendation, format) => deps.exportRecommendation(project, recommendation, format),

    describe(configuration) {
      const plan = planOf(configuration);
      // a cluster its launcher started (`launchRecordOf`): what it launched, the same for every launch of it
      if (plan.actions.length === 0 && typeof configuration.launched === 'string')
        return {
          cluster: { cluster_id: plan.clusterId, actions: [], launched: configuration.launched },
          summary: `launched with ${configuration.launched}`,
        };
      return {
        cluster: { cluster_id: plan.clusterId, actions: plan.actions.map(presentAction) },
        summary: `cluster ${plan.clusterId}: ${plan.actions.map(describeAction).join('; ')}`,
      };
    },
  };
}
