import { awsAttributesSchema, azureAttributesSchema } from '@setpoint/api-contract/databricks';
import { z } from 'zod';

/** Databricks ids are int64: numbers or strings on the wire, decimal strings inside Setpoint. */
export const databricksId = z.union([z.string(), z.number()]).transform(String);

const attributes = z.looseObject({});

export const autoscaleSchema = z.looseObject({
  min_workers: z.number().int(),
  max_workers: z.number().int(),
});

/** A `new_cluster` spec: unknown fields are kept so an update can send the object back whole. */
export const newClusterSpecSchema = z.looseObject({
  spark_version: z.string().optional(),
  node_type_id: z.string().optional(),
  driver_node_type_id: z.string().optional(),
  num_workers: z.number().int().optional(),
  autoscale: autoscaleSchema.optional(),
  aws_attributes: awsAttributesSchema.optional(),
  azure_attributes: azureAttributesSchema.optional(),
  runtime_engine: z.string().optional(),
  spark_conf: z.record(z.string(), z.string()).optional(),
  custom_tags: z.record(z.string(), z.string()).optional(),
  cluster_log_conf: attributes.optional(),
  policy_id: z.string().optional(),
});
export type NewClusterSpec = z.infer<typeof newClusterSpecSchema>;

export const jobClusterSchema = z.looseObject({
  job_cluster_key: z.string(),
  new_cluster: newClusterSpecSchema.optional(),
});

export const taskSchema = z.looseObject({
  task_key: z.string(),
  existing_cluster_id: z.string().optional(),
  new_cluster: newClusterSpecSchema.optional(),
  job_cluster_key: z.string().optional(),
  /** Serverless compute: one of the job's `environments`. */
  environment_key: z.string().optional(),
});
export type JobTask = z.infer<typeof taskSchema>;

export const jobSettingsSchema = z.looseObject({
  name: z.string().optional(),
  tasks: z.array(taskSchema).optional(),
  job_clusters: z.array(jobClusterSchema).optional(),
  webhook_notifications: attributes.optional(),
  tags: z.record(z.string(), z.string()).optional(),
  /** Set on jobs a bundle deployed (`kind: BUNDLE`): the next `bundle deploy` overwrites API edits. */
  deployment: z.looseObject({ kind: z.string(), metadata_file_path: z.string().optional() }).optional(),
  /** `UI_LOCKED` on bundle-deployed jobs, `EDITABLE` otherwise. */
  edit_mode: z.string().optional(),
  /** Serverless tasks' performance mode: `PERFORMANCE_OPTIMIZED` (the default when absent) or `STANDARD`. */
  performance_target: z.string().optional(),
});
export type JobSettings = z.infer<typeof jobSettingsSchema>;

export const jobSchema = z.looseObject({
  job_id: databricksId,
  created_time: z.number().optional(),
  creator_user_name: z.string().optional(),
  settings: jobSettingsSchema.default({}),
  has_more: z.boolean().optional(),
  next_page_token: z.string().optional(),
});
export type Job = z.infer<typeof jobSchema>;

export const listJobsResponseSchema = z.looseObject({
  jobs: z.array(jobSchema).default([]),
  next_page_token: z.string().optional(),
  has_more: z.boolean().optional(),
});

export const runStateSchema = z.looseObject({
  life_cycle_state: z.string(),
  result_state: z.string().optional(),
  state_message: z.string().optional(),
});

export const clusterInstanceSchema = z.looseObject({
  cluster_id: z.string().optional(),
  spark_context_id: databricksId.optional(),
});

export const runTaskSchema = z.looseObject({
  run_id: databricksId,
  task_key: z.string(),
  start_time: z.number().optional(),
  end_time: z.number().optional(),
  /** ms creating the cluster before the task's code ran; then ms running it. */
  setup_duration: z.number().optional(),
  execution_duration: z.number().optional(),
  state: runStateSchema.optional(),
  cluster_instance: clusterInstanceSchema.optional(),
  new_cluster: newClusterSpecSchema.optional(),
  job_cluster_key: z.string().optional(),
  existing_cluster_id: z.string().optional(),
  environment_key: z.string().optional(),
  /** The performance mode a serverless task ran in. */
  effective_performance_target: z.string().optional(),
});
export type RunTask = z.infer<typeof runTaskSchema>;

export const runSchema = z.looseObject({
  run_id: databricksId,
  job_id: databricksId.optional(),
  run_name: z.string().optional(),
  run_type: z.string().optional(),
  start_time: z.number(),
  end_time: z.number().default(0),
  state: runStateSchema,
  cluster_instance: clusterInstanceSchema.optional(),
  job_clusters: z.array(jobClusterSchema).optional(),
  tasks: z.array(runTaskSchema).optional(),
  /** The performance mode the run's serverless tasks ran in (it may differ from the one asked for). */
  effective_performance_target: z.string().optional(),
  next_page_token: z.string().optional(),
  has_more: z.boolean().optional(),
});
export type Run = z.infer<typeof runSchema>;

export const listRunsResponseSchema = z.looseObject({
  runs: z.array(runSchema).default([]),
  next_page_token: z.string().optional(),
  has_more: z.boolean().optional(),
});

export const runNowResponseSchema = z.looseObject({
  run_id: databricksId,
  number_in_job: databricksId.optional(),
});

export const clusterSchema = z.looseObject({
  cluster_id: z.string(),
  spark_context_id: databricksId.optional(),
  state: z.string().optional(),
  start_time: z.number().optional(),
  terminated_time: z.number().optional(),
  num_workers: z.number().int().optional(),
  autoscale: autoscaleSchema.optional(),
  node_type_id: z.string().optional(),
  driver_node_type_id: z.string().optional(),
  spark_version: z.string().optional(),
  runtime_engine: z.string().optional(),
  aws_attributes: awsAttributesSchema.optional(),
  azure_attributes: azureAttributesSchema.optional(),
  cluster_log_conf: attributes.optional(),
  cluster_log_status: z
    .looseObject({ last_attempted: z.number().optional(), last_exception: z.string().optional() })
    .optional(),
  cluster_source: z.string().optional(),
});
export type Cluster = z.infer<typeof clusterSchema>;

export const clusterEventSchema = z.looseObject({
  cluster_id: z.string(),
  timestamp: z.number(),
  /** Unknown event types are kept as strings: the enum grows over time. */
  type: z.string(),
  details: z.looseObject({}).default({}),
});
export type ClusterEvent = z.infer<typeof clusterEventSchema>;

export const clusterEventsResponseSchema = z.looseObject({
  events: z.array(clusterEventSchema).default([]),
  next_page: z.looseObject({}).optional(),
  next_page_token: z.string().optional(),
  total_count: z.number().optional(),
});

/** One rule of a compute policy, by attribute path (the compute policy reference's limitation types). */
export const policyRuleSchema = z.looseObject({
  type: z.enum(['fixed', 'forbidden', 'allowlist', 'blocklist', 'range', 'regex', 'unlimited']),
  value: z.unknown().optional(),
  values: z.array(z.unknown()).optional(),
  pattern: z.string().optional(),
  minValue: z.number().optional(),
  maxValue: z.number().optional(),
  defaultValue: z.unknown().optional(),
  isOptional: z.boolean().optional(),
  hidden: z.boolean().optional(),
});
export type PolicyRule = z.infer<typeof policyRuleSchema>;

/** `instance-pools/get`: a pool's clusters run its node type (the cluster then names none itself). */
export const instancePoolSchema = z.looseObject({
  instance_pool_id: z.string(),
  instance_pool_name: z.string().optional(),
  node_type_id: z.string(),
  /** The pool's market: its clusters' nodes are bought as the pool says. */
  aws_attributes: awsAttributesSchema.optional(),
  azure_attributes: azureAttributesSchema.optional(),
});
export type InstancePool = z.infer<typeof instancePoolSchema>;

/** `policies/clusters/get`: the definition is a JSON text of rules by path, parsed here at the edge. */
export const clusterPolicySchema = z.looseObject({
  policy_id: z.string(),
  name: z.string(),
  definition: z
    .string()
    .default('{}')
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'the policy definition is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), policyRuleSchema)),
});
export type ClusterPolicy = z.infer<typeof clusterPolicySchema>;

export const nodeTypeSchema = z.looseObject({
  node_type_id: z.string(),
  memory_mb: z.number(),
  num_cores: z.number(),
  instance_type_id: z.string().optional(),
  category: z.string().optional(),
  photon_worker_capable: z.boolean().optional(),
  photon_driver_capable: z.boolean().optional(),
  is_graviton: z.boolean().optional(),
  is_deprecated: z.boolean().optional(),
  is_hidden: z.boolean().optional(),
  /** `status` lists why the workspace cannot launch it ("NotAvailableInRegion", "NotEnabledOnSubscription"). */
  node_info: z.looseObject({ status: z.array(z.string()).optional() }).optional(),
});
export type NodeType = z.infer<typeof nodeTypeSchema>;

/** The node types a workspace can launch: listed, not deprecated or hidden, with no unavailability status. */
export function launchableNodeTypeIds(nodeTypes: readonly NodeType[]): Set<string> {
  return new Set(
    nodeTypes
      .filter(
        (entry) =>
          entry.is_deprecated !== true &&
          entry.is_hidden !== true &&
          (entry.node_info?.status ?? []).length === 0,
      )
      .map((entry) => entry.node_type_id),
  );
}

export const listNodeTypesResponseSchema = z.looseObject({ node_types: z.array(nodeTypeSchema).default([]) });

export const dbfsFileInfoSchema = z.looseObject({
  path: z.string(),
  is_dir: z.boolean().default(false),
  file_size: z.number().default(0),
  modification_time: z.number().optional(),
});
export type DbfsFileInfo = z.infer<typeof dbfsFileInfoSchema>;

export const dbfsListResponseSchema = z.looseObject({ files: z.array(dbfsFileInfoSchema).default([]) });
export const dbfsReadResponseSchema = z.looseObject({ bytes_read: z.number(), data: z.string() });

export const directoryEntrySchema = z.looseObject({
  path: z.string(),
  name: z.string().optional(),
  is_directory: z.boolean().default(false),
  file_size: z.number().optional(),
  last_modified: z.number().optional(),
});
export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

export const directoryListResponseSchema = z.looseObject({
  contents: z.array(directoryEntrySchema).default([]),
  next_page_token: z.string().optional(),
});

export const notificationDestinationSchema = z.looseObject({
  id: z.string(),
  display_name: z.string().optional(),
  destination_type: z.string().optional(),
  config: z.looseObject({}).optional(),
});
export type NotificationDestination = z.infer<typeof notificationDestinationSchema>;

export const listNotificationDestinationsResponseSchema = z.looseObject({
  results: z.array(notificationDestinationSchema).default([]),
  next_page_token: z.string().optional(),
});

/** SQL Statement Execution API: a statement's status, result manifest and (INLINE JSON_ARRAY) result chunk. */
export const statementChunkSchema = z.object({
  chunk_index: z.number().int().nonnegative().default(0),
  row_offset: z.number().int().nonnegative().default(0),
  row_count: z.number().int().nonnegative().default(0),
  data_array: z.array(z.array(z.string().nullable())).default([]),
  next_chunk_index: z.number().int().optional(),
  next_chunk_internal_link: z.string().optional(),
});

export const statementSchema = z.object({
  statement_id: z.string(),
  status: z.object({
    state: z.enum(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']),
    error: z.object({ error_code: z.string().optional(), message: z.string().optional() }).optional(),
    sql_state: z.string().optional(),
  }),
  manifest: z
    .object({
      schema: z.object({
        columns: z.array(z.object({ name: z.string(), type_name: z.string().optional() })).default([]),
      }),
      total_chunk_count: z.number().int().optional(),
      total_row_count: z.number().int().optional(),
      truncated: z.boolean().optional(),
    })
    .optional(),
  result: statementChunkSchema.optional(),
});
export type Statement = z.output<typeof statementSchema>;

/** SCIM `Me` (Current User API): the principal a credential signs in as; a service principal has no userName. */
export const currentUserSchema = z.looseObject({
  id: z.string().optional(),
  userName: z.string().optional(),
  displayName: z.string().optional(),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;
