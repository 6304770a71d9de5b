import type { DesiredFields, DesiredValue, PathStep } from '../../../iac/code-edit.js';
import { sourceTagKey } from '../../../iac/source-address.js';
import type { DeclaredSource, PlatformCode } from '../../../service/code/platform-code.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { ClusterConfiguration } from '../../../service/recommender/recommender.js';
import type { RunService } from '../../../service/runs/run-service.js';
import type { NewClusterSpec } from '../api/schema.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { withManagedFields } from '../jobs/apply-cluster-change.js';
import { findClusterSpec, type JobClusterRef, parseClusterRefKey } from '../jobs/job-clusters.js';
import { diffManagedFields, type ManagedClusterFields, managedFieldsOf } from '../jobs/managed-fields.js';

/**
 * A recommendation's managed fields as a `new_cluster` should hold them in code: the fields set, the other
 * of `num_workers` / `autoscale` removed, attribute values Setpoint clears removed. Terraform, bundles and
 * the Databricks provider's operators all spell a cluster as the Clusters API does.
 */
export function desiredClusterFields(managed: ManagedClusterFields): DesiredFields {
  const fields: Record<string, DesiredValue> = {};
  for (const field of ['node_type_id', 'driver_node_type_id'] as const)
    if (managed[field] !== undefined) fields[field] = managed[field];
  if (managed.autoscale) {
    fields.num_workers = null;
    fields.autoscale = {
      block: { min_workers: managed.autoscale.min_workers, max_workers: managed.autoscale.max_workers },
    };
  } else if (managed.num_workers !== undefined) {
    fields.num_workers = managed.num_workers;
    fields.autoscale = null;
  }
  if (managed.runtime_engine !== undefined) fields.runtime_engine = managed.runtime_engine;
  for (const attributes of ['aws_attributes', 'azure_attributes'] as const) {
    const values = managed[attributes];
    if (values)
      fields[attributes] = {
        block: Object.fromEntries(
          Object.entries(values).filter(([, value]) => value !== undefined),
        ) as DesiredFields,
      };
  }
  return fields;
}

function pathsOf(ref: JobClusterRef): { terraform: PathStep[]; bundle: PathStep[] } {
  return ref.kind === 'job_cluster'
    ? {
        terraform: [
          { field: 'job_cluster', where: { job_cluster_key: ref.jobClusterKey } },
          { field: 'new_cluster' },
        ],
        bundle: [
          { field: 'job_clusters', where: { job_cluster_key: ref.jobClusterKey } },
          { field: 'new_cluster' },
        ],
      }
    : {
        terraform: [{ field: 'task', where: { task_key: ref.taskKey } }, { field: 'new_cluster' }],
        bundle: [{ field: 'tasks', where: { task_key: ref.taskKey } }, { field: 'new_cluster' }],
      };
}

/** Where a DatabricksSubmitRunOperator's cluster may be: `new_cluster=`, or inside its runs/submit `json=`. */
const operatorLocations = (taskKey: string | null) => [
  { argument: 'new_cluster', path: [] },
  { argument: 'json', path: [{ field: 'new_cluster' }] },
  ...(taskKey
    ? [
        {
          argument: 'json',
          path: [{ field: 'tasks', where: { task_key: taskKey } }, { field: 'new_cluster' }],
        },
      ]
    : []),
];

/**
 * Databricks' side of proposals: the Jobs API's word on where a job is defined (`deployment.kind = BUNDLE`,
 * `edit_mode = UI_LOCKED`, a `setpoint:source` tag), the recommendation as Terraform `databricks_job`,
 * bundle `resources.jobs` and Airflow operator edits, and whether the job runs a configuration now.
 */
export function createDatabricksCode(deps: {
  connect: ConnectWorkspace;
  projects: Pick<ProjectService, 'get'>;
  runs: Pick<RunService, 'list'>;
}): PlatformCode {
  async function jobOf(projectId: string) {
    const project = await deps.projects.get(projectId);
    const ref = project.clusterKey ? parseClusterRefKey(project.clusterKey) : undefined;
    if (!project.workspaceId || !project.jobId) return { project, job: null, ref: ref ?? null };
    const { client } = await deps.connect(project.workspaceId);
    return { project, job: await client.getJob(project.jobId), ref: ref ?? null };
  }

  /** The cluster the project runs now: the job's (when it has one), else its latest run's report. */
  async function currentSpec(projectId: string): Promise<NewClusterSpec | null> {
    const { job, ref } = await jobOf(projectId);
    if (job && ref) return findClusterSpec(job.settings, ref) ?? null;
    const latest = (await deps.runs.list(projectId, { limit: 1, offset: 0 })).items[0];
    return (latest?.clusterConfig as NewClusterSpec | null | undefined) ?? null;
  }

  return {
    async declaredSource(projectId): Promise<DeclaredSource> {
      const { job } = await jobOf(projectId);
      const settings = job?.settings;
      return {
        deployedFrom: settings?.deployment?.kind === 'BUNDLE' ? 'bundle' : null,
        locked: settings?.edit_mode === 'UI_LOCKED',
        sourceTag: settings?.tags?.[sourceTagKey] ?? null,
      };
    },

    async edits(projectId, configuration: ClusterConfiguration) {
      const { project, job, ref } = await jobOf(projectId);
      const fields = desiredClusterFields(managedFieldsOf(configuration));
      const name = job?.settings.name ?? project.name;
      const taskKey = ref?.kind === 'task_cluster' ? ref.taskKey : null;
      const airflow = {
        format: 'airflow' as const,
        operators: ['DatabricksSubmitRunOperator'],
        locations: operatorLocations(taskKey),
        fields,
        fallback: 'setpoint.airflow.pre_execute_hook',
      };
      if (!ref) return { airflow };
      const paths = pathsOf(ref);
      return {
        terraform: {
          format: 'terraform',
          resources: [
            {
              type: 'databricks_job',
              match: { attribute: 'name', equals: name },
              path: paths.terraform,
              fields,
            },
          ],
        },
        bundle: { format: 'bundle', job: { name }, path: paths.bundle, fields },
        airflow,
      };
    },

    // the whole new_cluster, as the writer records what it writes
    async deployed(projectId, configuration) {
      const current = await currentSpec(projectId);
      if (!current) return null;
      const wanted = withManagedFields(current, managedFieldsOf(configuration), {
        maintainScalingType: false,
      });
      return diffManagedFields(current, wanted).length === 0 ? current : null;
    },
  };
}
