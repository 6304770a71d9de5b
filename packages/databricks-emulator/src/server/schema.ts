import { z } from 'zod';

/** Request bodies the emulator accepts. Unknown fields are kept, as the real service keeps them. */

/**
 * The Jobs and Clusters APIs parse bodies with proto3's JSON mapping, which takes a number either as
 * a JSON number or as a decimal string ("6"); clients such as Airflow's Databricks provider send strings.
 */
function protoNumber(integer: boolean) {
  const pattern = integer ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/;
  const base = integer ? z.number().int() : z.number();
  return z.union([base, z.string().regex(pattern).transform(Number)]);
}
const protoInt = () => protoNumber(true).pipe(z.number().int());
const nonNegativeInt = () => protoNumber(true).pipe(z.number().int().nonnegative());

/**
 * The cluster fields are only coerced here (proto3 numbers); what values Databricks accepts is judged by
 * the validity contract (`cluster-validity.ts`), which answers with the platform's own messages.
 */
const awsAttributesSchema = z.looseObject({
  first_on_demand: protoInt().optional(),
  spot_bid_price_percent: protoInt().optional(),
  ebs_volume_count: protoInt().optional(),
  ebs_volume_size: protoInt().optional(),
  ebs_volume_iops: protoInt().optional(),
  ebs_volume_throughput: protoInt().optional(),
});

const azureAttributesSchema = z.looseObject({
  first_on_demand: protoInt().optional(),
  spot_bid_max_price: protoNumber(false).optional(),
});

const newClusterSchema = z.looseObject({
  spark_version: z.string().optional(),
  node_type_id: z.string().optional(),
  driver_node_type_id: z.string().optional(),
  num_workers: protoInt().optional(),
  autoscale: z
    .looseObject({ min_workers: protoInt().optional(), max_workers: protoInt().optional() })
    .optional(),
  autotermination_minutes: nonNegativeInt().optional(),
  runtime_engine: z.string().optional(),
  spark_conf: z.record(z.string(), z.string()).optional(),
  aws_attributes: awsAttributesSchema.optional(),
  azure_attributes: azureAttributesSchema.optional(),
  cluster_log_conf: z
    .looseObject({
      dbfs: z.looseObject({ destination: z.string() }).optional(),
      volumes: z.looseObject({ destination: z.string() }).optional(),
      s3: z.looseObject({ destination: z.string() }).optional(),
    })
    .optional(),
});

const webhookListSchema = z
  .array(z.looseObject({ id: z.string() }))
  .max(3, 'A maximum of 3 destinations can be specified');

export const webhookNotificationsSchema = z.looseObject({
  on_start: webhookListSchema.optional(),
  on_success: webhookListSchema.optional(),
  on_failure: webhookListSchema.optional(),
  on_duration_warning_threshold_exceeded: webhookListSchema.optional(),
});

/** The Jobs API's serverless performance modes (`performance_target`); the first is Databricks' default. */
export const performanceTargets = ['PERFORMANCE_OPTIMIZED', 'STANDARD'] as const;
export type PerformanceTarget = (typeof performanceTargets)[number];
const performanceTargetSchema = z.enum(performanceTargets);

export const taskSchema = z.looseObject({
  task_key: z.string().min(1),
  depends_on: z.array(z.looseObject({ task_key: z.string(), outcome: z.string().optional() })).optional(),
  new_cluster: newClusterSchema.optional(),
  job_cluster_key: z.string().optional(),
  existing_cluster_id: z.string().optional(),
  /** Serverless compute: the key of one of the job's `environments`. */
  environment_key: z.string().min(1).optional(),
  webhook_notifications: webhookNotificationsSchema.optional(),
  run_if: z.string().optional(),
  timeout_seconds: nonNegativeInt().optional(),
  max_retries: protoInt().optional(),
  min_retry_interval_millis: nonNegativeInt().optional(),
});

export const jobClusterSchema = z.looseObject({
  job_cluster_key: z.string().min(1),
  new_cluster: newClusterSchema,
});

export const jobSettingsSchema = z.looseObject({
  name: z.string().optional(),
  tasks: z.array(taskSchema).optional(),
  job_clusters: z.array(jobClusterSchema).optional(),
  webhook_notifications: webhookNotificationsSchema.optional(),
  notification_settings: z
    .looseObject({
      no_alert_for_skipped_runs: z.boolean().optional(),
      no_alert_for_canceled_runs: z.boolean().optional(),
    })
    .optional(),
  max_concurrent_runs: nonNegativeInt().optional(),
  performance_target: performanceTargetSchema.optional(),
  environments: z
    .array(z.looseObject({ environment_key: z.string().min(1), spec: z.looseObject({}).optional() }))
    .optional(),
  timeout_seconds: nonNegativeInt().optional(),
  health: z
    .looseObject({
      rules: z.array(z.looseObject({ metric: z.string(), op: z.string(), value: z.number() })).optional(),
    })
    .optional(),
});

const int64Schema = nonNegativeInt();

export const createJobBodySchema = jobSettingsSchema.extend({
  access_control_list: z.array(z.unknown()).optional(),
});

export const updateJobBodySchema = z.object({
  job_id: int64Schema,
  new_settings: jobSettingsSchema.optional(),
  fields_to_remove: z.array(z.string()).optional(),
});

export const resetJobBodySchema = z.object({ job_id: int64Schema, new_settings: jobSettingsSchema });

export const jobIdBodySchema = z.looseObject({ job_id: int64Schema });

export const runNowBodySchema = z.looseObject({
  job_id: int64Schema,
  idempotency_token: z.string().max(64).optional(),
  job_parameters: z.record(z.string(), z.string()).optional(),
  only: z.array(z.string()).optional(),
  /** This run's performance mode, over the job's. */
  performance_target: performanceTargetSchema.optional(),
});

export const submitRunBodySchema = z.looseObject({
  run_name: z.string().optional(),
  timeout_seconds: nonNegativeInt().optional(),
  tasks: z.array(taskSchema).min(1),
  idempotency_token: z.string().max(64).optional(),
  webhook_notifications: webhookNotificationsSchema.optional(),
});

export const runIdBodySchema = z.looseObject({ run_id: int64Schema });

export const clusterEventsBodySchema = z.looseObject({
  cluster_id: z.string(),
  start_time: z.number().int().optional(),
  end_time: z.number().int().optional(),
  event_types: z.array(z.string()).optional(),
  order: z.enum(['ASC', 'DESC']).optional(),
  page_size: z.number().int().min(0).max(500).optional(),
  page_token: z.string().optional(),
  limit: z.number().int().min(0).max(500).optional(),
  offset: z.number().int().min(0).optional(),
});

/** clusters/create: a cluster spec with its name (the spec's fields are judged by the validity contract). */
export const allPurposeClusterBodySchema = newClusterSchema.extend({ cluster_name: z.string().optional() });

export const editClusterBodySchema = allPurposeClusterBodySchema.extend({ cluster_id: z.string() });

export const clusterIdBodySchema = z.looseObject({ cluster_id: z.string() });

export const dbfsPutBodySchema = z.object({
  path: z.string(),
  contents: z.string().optional(),
  overwrite: z.boolean().optional(),
});

export const dbfsPathBodySchema = z.looseObject({ path: z.string(), recursive: z.boolean().optional() });
export const dbfsCreateBodySchema = z.object({ path: z.string(), overwrite: z.boolean().optional() });
export const dbfsAddBlockBodySchema = z.object({ handle: z.number().int(), data: z.string() });
export const dbfsCloseBodySchema = z.object({ handle: z.number().int() });

export const workspaceImportBodySchema = z.looseObject({
  path: z.string(),
  content: z.string().optional(),
  format: z.enum(['AUTO', 'SOURCE', 'HTML', 'JUPYTER', 'DBC', 'R_MARKDOWN', 'RAW']).optional(),
  language: z.enum(['PYTHON', 'SCALA', 'SQL', 'R']).optional(),
  overwrite: z.boolean().optional(),
});

export const workspacePathBodySchema = z.looseObject({ path: z.string(), recursive: z.boolean().optional() });

export const secretScopeBodySchema = z.looseObject({ scope: z.string().regex(/^[\w.@-]{1,128}$/) });
export const secretPutBodySchema = z.object({
  scope: z.string(),
  key: z.string().regex(/^[\w.-]{1,128}$/),
  string_value: z.string().optional(),
  bytes_value: z.string().optional(),
});
export const secretDeleteBodySchema = z.object({ scope: z.string(), key: z.string() });

const genericWebhookSchema = z.looseObject({
  url: z.string().url().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
});

export const destinationConfigSchema = z.looseObject({
  generic_webhook: genericWebhookSchema.optional(),
  email: z.looseObject({ addresses: z.array(z.string()).optional() }).optional(),
  slack: z.looseObject({ url: z.string().optional() }).optional(),
  microsoft_teams: z.looseObject({ url: z.string().optional() }).optional(),
  pagerduty: z.looseObject({ integration_key: z.string().optional() }).optional(),
});

export const createDestinationBodySchema = z.object({
  display_name: z.string().min(1),
  config: destinationConfigSchema,
});

export const updateDestinationBodySchema = z.object({
  display_name: z.string().min(1).optional(),
  config: destinationConfigSchema.optional(),
});

export type JobSettings = z.infer<typeof jobSettingsSchema>;
export type TaskSettings = z.infer<typeof taskSchema>;
export type JobClusterSettings = z.infer<typeof jobClusterSchema>;
export type NewClusterSettings = z.infer<typeof newClusterSchema>;
export type WebhookNotifications = z.infer<typeof webhookNotificationsSchema>;
export type DestinationConfig = z.infer<typeof destinationConfigSchema>;
