import { z } from 'zod';
import type { ConnectionBody, ConnectionResource } from './connections.js';

/**
 * The EMR platform's routes: accounts (an AWS account and region Setpoint reads EMR clusters from),
 * their access check, discovery and import of recurring workloads, step collection, and resizes of
 * long-running clusters with their history, rollback and exports. Secrets are write-only.
 */

const region = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region looks like us-east-1');
const accessKeyId = z
  .string()
  .regex(/^[A-Z0-9]{16,128}$/, 'an AWS access key id is 16–128 upper-case letters and digits');
const accessKeys = z.object({
  access_key_id: accessKeyId,
  secret_access_key: z.string().min(1).max(1024),
  session_token: z.string().min(1).max(4096).optional(),
});

/** How Setpoint signs in to the account: the server's default AWS chain, access keys, or an assumed role. */
export const emrCredentialsBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('default-chain') }),
  accessKeys.extend({ kind: z.literal('access-keys') }),
  z.object({
    kind: z.literal('assume-role'),
    role_arn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/,
        'a role ARN looks like arn:aws:iam::123456789012:role/name',
      ),
    external_id: z.string().min(2).max(1224).optional(),
    session_name: z
      .string()
      .regex(/^[\w+=,.@-]{2,64}$/)
      .optional(),
    /** Keys that assume the role; the server's default chain when absent. */
    source: accessKeys.optional(),
  }),
]);
export type EmrCredentialsBody = z.infer<typeof emrCredentialsBody>;

/** How steps become workloads (projects): a cluster tag, the cluster name, a pattern on it, or the step name. */
export const emrGroupingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tag'), key: z.string().min(1).max(128).default('setpoint:project-id') }),
  z.object({ kind: z.literal('cluster-name') }),
  z.object({
    kind: z.literal('name-pattern'),
    pattern: z
      .string()
      .min(1)
      .max(500)
      .refine((pattern) => {
        try {
          new RegExp(pattern);
          return true;
        } catch {
          return false;
        }
      }, 'not a valid regular expression'),
  }),
  z.object({ kind: z.literal('step-name') }),
]);
export type EmrGrouping = z.infer<typeof emrGroupingSchema>;

export const emrAccountBody = z.object({
  name: z.string().min(1).max(200),
  region,
  credentials: emrCredentialsBody,
  /** An EMR endpoint other than AWS's (a VPC endpoint). */
  endpoint: z.url().optional(),
  /** An S3-compatible endpoint for the log buckets. */
  s3_endpoint: z.url().optional(),
  /** Keys for an S3-compatible log store that has its own. */
  log_store_keys: z
    .object({ access_key_id: z.string().min(1).max(128), secret_access_key: z.string().min(1).max(1024) })
    .optional(),
  /** An STS endpoint for assume-role. */
  sts_endpoint: z.url().optional(),
  grouping: emrGroupingSchema.default({ kind: 'tag', key: 'setpoint:project-id' }),
});
export type EmrAccountBody = z.input<typeof emrAccountBody>;

export const emrAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  region: z.string(),
  credential_kind: z.enum(['default-chain', 'access-keys', 'assume-role']),
  role_arn: z.string().nullable(),
  has_external_id: z.boolean(),
  /** The last four characters of the access key id, when keys are stored. */
  access_key_id_hint: z.string().nullable(),
  endpoint: z.string().nullable(),
  s3_endpoint: z.string().nullable(),
  sts_endpoint: z.string().nullable(),
  has_log_store_keys: z.boolean(),
  grouping: emrGroupingSchema,
  last_reconciled_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type EmrAccountResource = z.infer<typeof emrAccountSchema>;

export const emrAccountListSchema = z.object({ items: z.array(emrAccountSchema) });
export type EmrAccountList = z.infer<typeof emrAccountListSchema>;

export const emrAccessCheckBody = z.object({
  /** Further log locations to check s3:ListBucket and s3:GetObject on. */
  log_locations: z
    .array(z.string().regex(/^s3[an]?:\/\/[^/]+/, 'an S3 location looks like s3://bucket/prefix'))
    .max(20)
    .default([]),
});

export const emrAccessCheckSchema = z.object({
  /** Every EMR permission collection needs is held and no S3 one is missing (apply permissions are reported, not required). */
  ok: z.boolean(),
  checks: z.array(
    z.object({
      permission: z.string(),
      needed_for: z.enum(['collect', 'apply']),
      status: z.enum(['held', 'missing', 'unknown']),
      detail: z.string(),
      resource: z.string().nullable(),
    }),
  ),
});
export type EmrAccessCheck = z.infer<typeof emrAccessCheckSchema>;

/** `tag[:KEY]`, `cluster-name`, `name-pattern:REGEX` or `step-name`; the account's rule when absent. */
export const emrGroupByText = z.string().min(1).max(520);

export const emrDiscoverQuery = z.object({
  since_days: z.coerce.number().int().min(1).max(90).default(14),
  group_by: emrGroupByText.optional(),
});

const discoveredStepSchema = z.object({
  cluster_id: z.string(),
  cluster_name: z.string(),
  transient: z.boolean(),
  step_id: z.string(),
  step_name: z.string(),
  state: z.string(),
  started_at: z.number().nullable(),
  ended_at: z.number().nullable(),
});

export const emrDiscoverSchema = z.object({
  grouping: emrGroupingSchema,
  clusters: z.number().int(),
  workloads: z.array(
    z.object({
      key: z.string(),
      recurring: z.boolean(),
      runs: z.array(discoveredStepSchema),
      cluster_ids: z.array(z.string()),
      /** The long-running cluster its newest run used (apply resizes it); null on transient clusters. */
      long_running_cluster_id: z.string().nullable(),
      project_id: z.string().nullable(),
    }),
  ),
  ungrouped: z.array(z.object({ cluster_id: z.string(), step_id: z.string(), reason: z.string() })),
});
export type EmrDiscoverResource = z.infer<typeof emrDiscoverSchema>;

export const emrImportBody = z.object({
  workloads: z.array(z.string().min(1).max(500)).min(1).max(200),
  since_days: z.number().int().min(1).max(90).default(14),
  group_by: emrGroupByText.optional(),
  /** Project settings for the new projects (validated against the full settings schema). */
  settings: z.record(z.string(), z.unknown()).optional(),
  /** Queue the collection of the runs already finished (default true). */
  collect_history: z.boolean().default(true),
});
export type EmrImportBody = z.input<typeof emrImportBody>;

export const emrImportSchema = z.object({
  projects: z.array(
    z.object({
      id: z.string(),
      workload: z.string(),
      cluster_id: z.string().nullable(),
      created: z.boolean(),
      queued_runs: z.number().int(),
    }),
  ),
  /** Requested workloads discovery did not find. */
  missing: z.array(z.string()),
});
export type EmrImportResource = z.infer<typeof emrImportSchema>;

/** An EMR Serverless application id as the API names it (`00fkvq1t2b3c4d5e`). */
const serverlessApplicationId = z
  .string()
  .regex(/^[0-9a-z]{1,64}$/, 'an EMR Serverless application id looks like 00fkvq1t2b3c4d5e');

export const emrServerlessDiscoverQuery = z.object({
  since_days: z.coerce.number().int().min(1).max(90).default(14),
  /** One application (default: every application of the account's region). */
  application_id: serverlessApplicationId.optional(),
});

export const emrServerlessDiscoverSchema = z.object({
  applications: z.array(
    z.object({
      id: z.string(),
      name: z.string().nullable(),
      release_label: z.string(),
      architecture: z.enum(['ARM64', 'X86_64']),
      state: z.string(),
      /** Its job runs grouped into jobs: by name without run-specific parts, else by entry point. */
      jobs: z.array(
        z.object({
          key: z.string(),
          recurring: z.boolean(),
          runs: z.array(
            z.object({
              job_run_id: z.string(),
              name: z.string().nullable(),
              state: z.string(),
              created_at: z.number(),
            }),
          ),
          project_id: z.string().nullable(),
        }),
      ),
    }),
  ),
  /** Job runs with neither a name nor a readable entry point. */
  ungrouped: z.number().int(),
});
export type EmrServerlessDiscoverResource = z.infer<typeof emrServerlessDiscoverSchema>;

export const emrServerlessImportBody = z.object({
  application_id: serverlessApplicationId,
  jobs: z.array(z.string().min(1).max(500)).min(1).max(200),
  since_days: z.number().int().min(1).max(90).default(14),
  /** Add the one job to this project of the account (a job that moved from an EMR cluster keeps its project). */
  project_id: z.string().min(1).max(100).optional(),
  /** Project settings for the new projects (validated against the full settings schema). */
  settings: z.record(z.string(), z.unknown()).optional(),
  /** Queue the collection of the runs already finished (default true). */
  collect_history: z.boolean().default(true),
});
export type EmrServerlessImportBody = z.input<typeof emrServerlessImportBody>;

export const emrServerlessImportSchema = z.object({
  projects: z.array(
    z.object({
      id: z.string(),
      application_id: z.string(),
      job: z.string(),
      created: z.boolean(),
      queued_runs: z.number().int(),
    }),
  ),
  /** Requested jobs discovery did not find in the application. */
  missing: z.array(z.string()),
});
export type EmrServerlessImportResource = z.infer<typeof emrServerlessImportSchema>;

export const emrCollectBody = z.object({
  cluster_id: z.string().regex(/^j-[A-Z0-9]+$/, 'an EMR cluster id looks like j-2AXXXXXXGAPLF'),
  step_id: z.string().regex(/^s-[A-Z0-9]+$/, 'an EMR step id looks like s-1XXXXXXXXXXXX'),
  /** The account to collect from (default: the project's). */
  account_id: z.string().min(1).max(100).optional(),
});
export type EmrCollectBody = z.infer<typeof emrCollectBody>;

export const emrCollectQueuedSchema = z.object({
  queued: z.literal(true),
  account_id: z.string(),
  cluster_id: z.string(),
  step_id: z.string(),
});
export type EmrCollectQueued = z.infer<typeof emrCollectQueuedSchema>;

const computeLimits = z.object({
  UnitType: z.string(),
  MinimumCapacityUnits: z.number(),
  MaximumCapacityUnits: z.number(),
  MaximumOnDemandCapacityUnits: z.number().optional(),
  MaximumCoreCapacityUnits: z.number().optional(),
});
const fleetTargets = z.object({ on_demand: z.number().int(), spot: z.number().int() });

/** One change to a cluster with its value before and after. */
export const emrResizeActionSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('instance-group'),
    instance_group_id: z.string(),
    from: z.number().int(),
    to: z.number().int(),
  }),
  z.object({
    kind: z.literal('instance-fleet'),
    instance_fleet_id: z.string(),
    from: fleetTargets,
    to: fleetTargets,
  }),
  z.object({ kind: z.literal('managed-scaling'), from: computeLimits.nullable(), to: computeLimits }),
]);

export const emrAppliedConfigSchema = z.object({
  id: z.string(),
  recommendation_id: z.string().nullable(),
  kind: z.enum(['apply', 'auto-apply', 'rollback', 'revert']),
  cluster_id: z.string(),
  actions: z.array(emrResizeActionSchema),
  /** The change a rollback or revert undid. */
  undoes: z.string().nullable(),
  actor: z.string(),
  reason: z.string(),
  created_at: z.number(),
});
export type EmrAppliedConfigResource = z.infer<typeof emrAppliedConfigSchema>;

export const emrAppliedConfigListSchema = z.object({
  items: z.array(emrAppliedConfigSchema),
  auto_apply_paused: z.boolean(),
  pause_reason: z.string().nullable(),
});
export type EmrAppliedConfigList = z.infer<typeof emrAppliedConfigListSchema>;

export const emrApplyBody = z.object({
  /** Which recommendation (default: the latest). */
  recommendation_id: z.string().min(1).max(100).optional(),
});

export const emrApplySchema = z.object({
  /** The recorded change; null when the cluster already matched. */
  config: emrAppliedConfigSchema.nullable(),
  actions: z.array(emrResizeActionSchema),
});
export type EmrApplyResource = z.infer<typeof emrApplySchema>;

export const emrRollbackBody = z.object({
  /** Undo every change after this applied configuration (default: the latest change). */
  to: z.string().min(1).max(100).optional(),
});

export const emrRollbackSchema = z.object({ undone: z.array(emrAppliedConfigSchema) });
export type EmrRollbackResource = z.infer<typeof emrRollbackSchema>;

export const emrExportQuery = z.object({
  format: z.enum(['json', 'terraform']).default('json'),
  recommendation: z.string().min(1).max(100).optional(),
});

export const emrResumeAutoApplySchema = z.object({ resumed: z.literal(true) });

/**
 * An AWS account and region's settings under `POST /api/v1/connections` (`platform: emr`): the fields of
 * `POST /api/v1/emr/accounts` but its name, which the envelope carries.
 */
export const emrConnectionSettings = emrAccountBody.omit({ name: true });
export type EmrConnectionSettings = z.infer<typeof emrConnectionSettings>;

/** `POST /api/v1/connections` for an EMR account, its settings typed. */
export type EmrConnectionBody = Omit<ConnectionBody, 'platform' | 'settings'> & {
  platform: 'emr';
  settings: z.input<typeof emrConnectionSettings>;
};

/** An EMR account as `/api/v1/connections` answers it: its settings are the account's but its name. */
export type EmrConnectionResource = Omit<ConnectionResource, 'settings'> & {
  settings: Omit<EmrAccountResource, 'id' | 'name' | 'created_at' | 'updated_at'>;
};
