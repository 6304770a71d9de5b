import { z } from 'zod';
import type { ConnectionBody, ConnectionResource } from './connections.js';
import type { WorkspaceSettingsResource } from './workspaces.js';

/**
 * The Databricks platform's routes and its cluster configuration as Setpoint's API shows it. The
 * cluster attributes are typed here once: the platform parses `new_cluster` with them and the
 * dashboard's diff reads recommendations and runs with them.
 */

export const awsAvailabilities = ['SPOT', 'ON_DEMAND', 'SPOT_WITH_FALLBACK'] as const;
export const azureAvailabilities = ['SPOT_AZURE', 'ON_DEMAND_AZURE', 'SPOT_WITH_FALLBACK_AZURE'] as const;

/** `aws_attributes` of a `new_cluster`; unknown fields are kept (a job is sent back whole). */
export const awsAttributesSchema = z.looseObject({
  /** Market of every node past the first `first_on_demand`. */
  availability: z.enum(awsAvailabilities).optional(),
  /** Nodes kept on-demand, the driver first; Databricks' default is 1. */
  first_on_demand: z.number().int().min(0).optional(),
  spot_bid_price_percent: z.number().optional(),
  zone_id: z.string().optional(),
  instance_profile_arn: z.string().optional(),
  ebs_volume_type: z.enum(['GENERAL_PURPOSE_SSD', 'THROUGHPUT_OPTIMIZED_HDD']).optional(),
  ebs_volume_count: z.number().int().min(0).optional(),
  ebs_volume_size: z.number().int().min(0).optional(),
  ebs_volume_iops: z.number().int().min(0).optional(),
  ebs_volume_throughput: z.number().int().min(0).optional(),
});
export type AwsAttributes = z.infer<typeof awsAttributesSchema>;

/** `azure_attributes` of a `new_cluster`. */
export const azureAttributesSchema = z.looseObject({
  availability: z.enum(azureAvailabilities).optional(),
  first_on_demand: z.number().int().min(0).optional(),
  spot_bid_max_price: z.number().optional(),
});
export type AzureAttributes = z.infer<typeof azureAttributesSchema>;

/** The `new_cluster` fields Setpoint reads and decides; other fields pass through untouched. */
export const newClusterSchema = z.looseObject({
  spark_version: z.string().optional(),
  node_type_id: z.string().optional(),
  driver_node_type_id: z.string().optional(),
  num_workers: z.number().int().min(0).optional(),
  autoscale: z.looseObject({ min_workers: z.number().int(), max_workers: z.number().int() }).optional(),
  runtime_engine: z.string().optional(),
  aws_attributes: awsAttributesSchema.optional(),
  azure_attributes: azureAttributesSchema.optional(),
  custom_tags: z.record(z.string(), z.string()).optional(),
});
export type NewCluster = z.infer<typeof newClusterSchema>;

/** What a recommendation writes into a job cluster: the managed fields only. */
export type ClusterFragment = Pick<
  NewCluster,
  'node_type_id' | 'driver_node_type_id' | 'num_workers' | 'autoscale' | 'runtime_engine'
> & {
  aws_attributes?: Partial<Record<keyof AwsAttributes, string | number | null>>;
  azure_attributes?: Partial<Record<keyof AzureAttributes, string | number | null>>;
};

export const accessCheckSchema = z.object({
  ok: z.boolean(),
  checks: z.array(
    z.object({ check: z.string(), ok: z.boolean(), detail: z.string(), fix: z.string().optional() }),
  ),
});
export type AccessCheckResource = z.infer<typeof accessCheckSchema>;
export const accessCheckBody = z
  .object({
    log_destination: z.string().max(1000).optional(),
    /** The SQL warehouse system tables are read through (checked and remembered). */
    sql_warehouse_id: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'a SQL warehouse id (letters, digits and dashes)')
      .optional(),
  })
  .default({});

const secret = z.string().min(1).max(10_000);
const identifier = z.string().min(1).max(200);

/**
 * How Setpoint signs in to a workspace (add or rotate); the secret is write-only and stored encrypted.
 * Names follow the Databricks SDKs' `auth_type`.
 */
export const workspaceAuthBody = z.discriminatedUnion('auth_type', [
  z.object({ auth_type: z.literal('pat'), token: secret }),
  z.object({ auth_type: z.literal('oauth-m2m'), client_id: identifier, client_secret: secret }),
  z.object({
    auth_type: z.literal('azure-client-secret'),
    azure_tenant_id: identifier,
    azure_client_id: identifier,
    azure_client_secret: secret,
    /** Defaults to https://login.microsoftonline.com (sovereign clouds have their own). */
    azure_authority_host: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .optional(),
  }),
]);
export type WorkspaceAuthBody = z.infer<typeof workspaceAuthBody>;
export const authMethods = ['pat', 'oauth-m2m', 'azure-client-secret'] as const;

export const workspaceAuthSchema = z.object({
  auth_type: z.enum(authMethods),
  /** The client id of a service principal (never the secret). */
  client_id: z.string().nullable(),
  updated_at: z.number(),
});
export type WorkspaceAuthResource = z.infer<typeof workspaceAuthSchema>;

export const discoverQuery = z.object({ window_days: z.coerce.number().int().min(1).max(60).default(30) });

export const discoveredJobSchema = z.object({
  job_id: z.string(),
  name: z.string(),
  compute: z.enum(['job_cluster', 'all_purpose', 'serverless', 'mixed']),
  photon: z.boolean(),
  autoscale: z.boolean(),
  spot: z.boolean(),
  run_submit: z.boolean(),
  imported: z.boolean(),
  runs_in_window: z.number().int(),
  core_hours_in_window: z.number(),
  /** Estimated spend per 30 days at list prices, or null with the reason in `cost_note`. */
  monthly_cost_usd: z.number().nullable(),
  /** Why there is no monthly cost (serverless, all-purpose, an unpriced cluster…), or what it leaves out. */
  cost_note: z.string().nullable(),
  /**
   * What the job could save a month, from evidence: for a job not imported yet, its own runs and the fleet
   * model through the optimizer pass of a first recommendation (the cheapest configuration at least as
   * likely to keep within the runtime bound as the optimizer's confidence); for an imported job, what its
   * newest recommendation still leaves. Null: not estimated (`saving_note` says why); 0: nothing to save.
   */
  estimated_monthly_savings_usd: z.number().nullable(),
  /** What the estimate rests on, in words; null without one. */
  saving_basis: z.string().nullable(),
  /** Why there is no estimate, or why it is 0; null when there is a saving. */
  saving_note: z.string().nullable(),
});
export type DiscoveredJobResource = z.infer<typeof discoveredJobSchema>;

export const discoverSchema = z.object({
  window_days: z.number().int(),
  jobs: z.array(discoveredJobSchema),
  findings: z.array(
    z.object({ id: z.string(), title: z.string(), job_ids: z.array(z.string()), detail: z.string() }),
  ),
  timeline: z.array(z.object({ day: z.string(), jobs: z.number().int(), core_hours: z.number() })),
});
export type DiscoverResource = z.infer<typeof discoverSchema>;

export const importBody = z.object({
  job_ids: z.array(z.string().min(1).max(40)).min(1).max(200),
  settings: z.record(z.string(), z.unknown()).optional(),
  log_destination: z.string().max(1000).optional(),
});
export const importSchema = z.object({
  jobs: z.array(
    z.object({
      job_id: z.string(),
      name: z.string(),
      projects: z.array(z.object({ id: z.string(), cluster_key: z.string() })),
      skipped: z.array(z.object({ what: z.string(), reason: z.string() })),
    }),
  ),
});
export type ImportResource = z.infer<typeof importSchema>;

export const detachBody = z.object({ job_id: z.string().min(1).max(40) });
export const detachSchema = z.object({ job_id: z.string(), projects: z.array(z.string()) });
export type DetachResource = z.infer<typeof detachSchema>;

/** A Databricks id (run, job, workspace): a non-negative 64-bit integer, sent as a number or a string. */
const databricksId = z
  .union([
    z.string().regex(/^\d{1,19}$/, 'a Databricks id is a number'),
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  ])
  .transform(String);

/** The job webhook Databricks POSTs: ids may be numbers or strings. */
export const webhookParams = z.object({ workspaceId: z.string().min(1).max(100) });
export const webhookPayloadSchema = z.looseObject({
  event_type: z.string(),
  workspace_id: databricksId.optional(),
  run: z.looseObject({ run_id: databricksId, parent_run_id: databricksId.optional() }),
  job: z.looseObject({ job_id: databricksId, name: z.string().optional() }).optional(),
  task: z.looseObject({ task_key: z.string() }).optional(),
});
export const webhookAcceptedSchema = z.object({ accepted: z.boolean(), duplicate: z.boolean() });

export const collectRunBody = z.object({ run_id: databricksId, workspace_id: z.string().optional() });
export const collectRunQueuedSchema = z.object({
  queued: z.literal(true),
  workspace_id: z.string(),
  run_id: z.string(),
});
export type CollectRunQueued = z.infer<typeof collectRunQueuedSchema>;

export type AccessCheckLine = AccessCheckResource['checks'][number];

/** A run's DBU cost as estimated from list prices and, once system.billing.usage has it, as billed. */
export const runBillingSchema = z.object({
  run_id: z.string(),
  databricks_run_id: z.string(),
  /** Null when the run was not estimated: a serverless run whose cost was pending until its bill. */
  estimated_dbus: z.number().nullable(),
  estimated_dbu_usd: z.number().nullable(),
  billed_dbus: z.number().nullable(),
  billed_dbu_usd: z.number().nullable(),
  /** billed − estimated, once billed (null without an estimate). */
  difference_usd: z.number().nullable(),
  /** A RETRACTION or RESTATEMENT changed the bill. */
  restated: z.boolean(),
  billed_at: z.number().nullable(),
  /** false while Setpoint still looks for (late or restated) billing records. */
  settled: z.boolean(),
});
export type RunBillingResource = z.infer<typeof runBillingSchema>;
export const runBillingListSchema = z.object({ items: z.array(runBillingSchema) });

/** The organization's estimate accuracy: how far list-price estimates were from the bill. */
export const billingAccuracySchema = z.object({
  estimated_runs: z.number().int(),
  billed_runs: z.number().int(),
  restated_runs: z.number().int(),
  /** median |estimated − billed| / billed DBU cost; null before the first bill. */
  median_abs_error: z.number().nullable(),
  estimated_dbu_usd: z.number(),
  billed_dbu_usd: z.number(),
});
export type BillingAccuracyResource = z.infer<typeof billingAccuracySchema>;

/**
 * A Databricks workspace's settings under `POST /api/v1/connections` (`platform: databricks`): where it
 * is, its plan, and the write-only credentials Setpoint signs in with.
 */
export const databricksConnectionSettings = z.object({
  cloud: z.enum(['aws', 'azure', 'gcp']),
  region: z.string().max(100).nullable().optional(),
  host: z.string().min(1).max(500),
  plan_type: z.enum(['Standard', 'Premium', 'Enterprise']).nullable().optional(),
  compute_type: z.string().max(100).nullable().optional(),
  credentials: z
    .record(z.string().min(1).max(100), z.string().max(10_000))
    .nullable()
    .optional()
    .describe('write-only; encrypted at rest'),
  webhook_credentials: z
    .record(z.string().min(1).max(100), z.string().max(10_000))
    .nullable()
    .optional()
    .describe('write-only; encrypted at rest'),
});
export type DatabricksConnectionSettings = z.infer<typeof databricksConnectionSettings>;

/** `POST /api/v1/connections` for a Databricks workspace, its settings typed. */
export type DatabricksConnectionBody = Omit<ConnectionBody, 'platform' | 'settings'> & {
  platform: 'databricks';
  settings: z.input<typeof databricksConnectionSettings>;
};

/** A Databricks workspace as `/api/v1/connections` answers it: its settings are the workspace's. */
export type DatabricksConnectionResource = Omit<ConnectionResource, 'settings'> & {
  settings: WorkspaceSettingsResource;
};
