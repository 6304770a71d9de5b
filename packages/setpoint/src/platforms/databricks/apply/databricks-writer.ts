import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { ApplyWriter, PlannedWrite, SettingChange } from '../../../service/apply/apply-writer.js';
import type { Project } from '../../../service/projects/project-records.js';
import type { Job, NewClusterSpec } from '../api/schema.js';
import { marketOfAvailability } from '../cluster-shape/cluster-shape.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import type { ExportDatabricksRecommendation } from '../export/export-service.js';
import { buildClusterUpdate, settingsWithCluster } from '../jobs/apply-cluster-change.js';
import {
  describeClusterRef,
  findClusterSpec,
  type JobClusterRef,
  parseClusterRefKey,
} from '../jobs/job-clusters.js';
import { diffManagedFields, type FieldDifference, managedFieldsOf } from '../jobs/managed-fields.js';
import { recommendationTagKey } from '../jobs/onboarding.js';
import { checkBeforeWrite } from '../validity/write-check.js';

/** The job cluster a project optimizes; the job as read once per operation (a write reads it afresh). */
export interface DatabricksTarget {
  workspaceId: string;
  jobId: string;
  ref: JobClusterRef;
  read?: Promise<{ job: Job; spec: NewClusterSpec }>;
}

const settingChanges = (differences: FieldDifference[]): SettingChange[] =>
  differences.map((difference) => ({
    what: difference.field,
    from: difference.before,
    to: difference.after,
  }));

/** `next` holds the cluster entry jobs/update sends, so tagging it changes what is written and recorded. */
function tagRecommendation(next: NewClusterSpec, recommendationId: string | null): void {
  const tags: Record<string, string> = { ...next.custom_tags };
  if (recommendationId) tags[recommendationTagKey] = recommendationId;
  else delete tags[recommendationTagKey];
  if (Object.keys(tags).length > 0) next.custom_tags = tags;
  else delete next.custom_tags;
}

const marketWords = { 'on-demand': 'on-demand', spot: 'spot', 'spot-with-fallback': 'spot with fallback' };

/** "8 × r5d.xlarge, spot with fallback", "2–8 × m5d.xlarge (autoscaling), Photon": what a reader compares. */
export function summarizeCluster(spec: NewClusterSpec): string {
  const node = spec.node_type_id ?? 'pool or policy node type';
  const size = spec.autoscale
    ? `${spec.autoscale.min_workers}–${spec.autoscale.max_workers} × ${node} (autoscaling)`
    : `${spec.num_workers ?? 0} × ${node}`;
  const cloud = spec.azure_attributes !== undefined ? 'azure' : 'aws';
  const availability = (cloud === 'azure' ? spec.azure_attributes : spec.aws_attributes)?.availability;
  const engine = spec.runtime_engine === 'PHOTON' || spec.spark_version?.includes('-photon-');
  return [
    size,
    typeof availability === 'string' ? marketWords[marketOfAvailability(availability, cloud)] : null,
    engine ? 'Photon' : null,
  ]
    .filter((part) => part !== null)
    .join(', ');
}

/**
 * Databricks' writer: it writes the whole cluster entry of the job with jobs/update (only the managed
 * fields changed, the recommendation's id in `custom_tags`) and records the whole `new_cluster`, so any
 * entry of the history can be gone back to and edits by others are told apart from Setpoint's.
 */
export function createDatabricksWriter(deps: {
  connect: ConnectWorkspace;
  exportRecommendation: ExportDatabricksRecommendation;
}): ApplyWriter<DatabricksTarget> {
  async function current(target: DatabricksTarget) {
    target.read ??= (async () => {
      const { client } = await deps.connect(target.workspaceId);
      const job = await client.getJob(target.jobId);
      const spec = findClusterSpec(job.settings, target.ref);
      if (!spec)
        throw new NotFoundError(
          'JOB_CLUSTER_NOT_FOUND',
          `job ${target.jobId} has no ${describeClusterRef(target.ref)} any more`,
        );
      return { job, spec };
    })();
    return target.read;
  }

  return {
    platform: 'databricks',
    defaultExportFormat: 'terraform',

    async locate(project: Project) {
      const ref = project.clusterKey ? parseClusterRefKey(project.clusterKey) : undefined;
      if (!project.workspaceId || !project.jobId || !ref)
        return {
          refusal: new ValidationError(
            'PROJECT_NOT_LINKED',
            `project ${project.id} is not linked to a Databricks job cluster; import the job first`,
          ),
        };
      return {
        target: { workspaceId: project.workspaceId, jobId: project.jobId, ref },
        description: `job ${project.jobId}`,
      };
    },

    async changedOutside(target, { history }) {
      const last = history.at(-1);
      if (!last) return null;
      const { spec } = await current(target);
      const fields = diffManagedFields(last.configuration as NewClusterSpec, spec).map(
        (difference) => difference.field,
      );
      return fields.length > 0 ? { fields, found: spec } : null;
    },

    async planApply(target, recommendation, project) {
      const { job } = await current(target);
      const update = buildClusterUpdate(
        job.settings,
        target.ref,
        managedFieldsOf(recommendation.configuration),
        {
          maintainScalingType: project.settings.maintainScalingType,
        },
      );
      const changes = settingChanges(diffManagedFields(update.previous, update.next));
      tagRecommendation(update.next, recommendation.id);
      return { configuration: update.next, changes, undoes: null };
    },

    async planUndo(target, { to, latest }) {
      if (!to)
        throw new NotFoundError(
          'NO_EARLIER_CONFIG',
          `job ${target.jobId} has no earlier configuration to go back to`,
        );
      const { job } = await current(target);
      const update = buildClusterUpdate(job.settings, target.ref, managedFieldsOf(to.configuration), {
        maintainScalingType: false,
      });
      const written = diffManagedFields(update.previous, update.next);
      // The job already holds it (an earlier try wrote it and was not recorded): what it changed is told from
      // Setpoint's record, as if this try had written it.
      const differences =
        written.length === 0 && latest
          ? diffManagedFields(latest.configuration as NewClusterSpec, update.next)
          : written;
      tagRecommendation(update.next, to.recommendationId);
      return [{ configuration: update.next, changes: settingChanges(differences), undoes: null }];
    },

    // Setpoint's own write: the managed fields it writes and its tag naming the recommendation they came from
    async holds(target, planned: PlannedWrite) {
      const { spec } = await current(target);
      const wanted = planned.configuration as NewClusterSpec;
      return (
        diffManagedFields(spec, wanted).length === 0 &&
        spec.custom_tags?.[recommendationTagKey] === wanted.custom_tags?.[recommendationTagKey]
      );
    },

    /**
     * Databricks' validity contract, right before jobs/update: the whole cluster as it would be written,
     * against the workspace's node types and the policy it names, read now. A cluster Databricks would
     * refuse throws `CLUSTER_INVALID` naming each rule; nothing is written or recorded.
     */
    async validate(target, planned) {
      const { spec } = await current(target);
      const connection = await deps.connect(target.workspaceId);
      await checkBeforeWrite(
        connection,
        planned.configuration as NewClusterSpec,
        `the change to job ${target.jobId}`,
        spec,
      );
    },

    async write(target, planned) {
      const { job } = await current(target);
      const { client } = await deps.connect(target.workspaceId);
      target.read = undefined;
      await client.updateJob(
        target.jobId,
        settingsWithCluster(job.settings, target.ref, planned.configuration as NewClusterSpec),
      );
    },

    export: (project, recommendation, format) => deps.exportRecommendation(project, recommendation, format),

    describe(configuration) {
      return { cluster: configuration, summary: summarizeCluster(configuration as NewClusterSpec) };
    },
  };
}
