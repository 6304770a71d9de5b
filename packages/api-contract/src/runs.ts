import { z } from 'zod';
import { idParams, listOf } from './common.js';
import { costComponentSchema } from './cost.js';

/** The cluster a run used, as its platform's report or the event log described it. */
export const clusterFactsSchema = z.object({
  source: z.enum(['cluster_report', 'eventlog']),
  cloud: z.string().nullable(),
  region: z.string().nullable(),
  nodeTypeId: z.string().nullable(),
  driverNodeTypeId: z.string().nullable(),
  workers: z.number().nullable(),
  autoscale: z.object({ minWorkers: z.number(), maxWorkers: z.number() }).nullable(),
  photon: z.boolean().nullable(),
  availability: z.string().nullable(),
  sparkVersion: z.string().nullable(),
});
export type ClusterFactsResource = z.infer<typeof clusterFactsSchema>;

/**
 * The part of a run's cost billed outside its Spark application's span (a cluster launched for the run:
 * provisioning, bootstrap, idle time, termination): how long and what it cost. It is included in
 * `total_usd`; the application's part is `total_usd - overhead.usd`. Null: the whole cost is over the
 * application's span (or the run was priced before Setpoint split the two).
 */
export const runCostOverheadSchema = z
  .object({ seconds: z.number().nonnegative(), usd: z.number().nonnegative() })
  .describe("billed outside the Spark application's span (start-up, idle, termination); part of total_usd");
export type RunCostOverheadResource = z.infer<typeof runCostOverheadSchema>;

/** A run's cost: its typed components, whose amounts sum to `total_usd` (and their bounds to low and high). */
export const runCostSchema = z.object({
  currency: z.literal('USD'),
  total_usd: z.number(),
  low_usd: z.number(),
  high_usd: z.number(),
  components: z.array(costComponentSchema),
  overhead: runCostOverheadSchema.nullable(),
});
export type RunCostResource = z.infer<typeof runCostSchema>;

/**
 * Why a run's cost is not known yet: its platform bills it later (a serverless Databricks run before its
 * records reach system.billing.usage, with no billed run of its job to estimate from). The run's `cost` is
 * null meanwhile, never $0; it fills in when the bill lands.
 */
export const costPendingMessage = 'cost pending: billing not yet available';

export const runCostPendingSchema = z.object({
  state: z.literal('billing_not_yet_available'),
  /** "cost pending: billing not yet available", for a person. */
  message: z.string(),
  reason: z.string(),
});
export type RunCostPendingResource = z.infer<typeof runCostPendingSchema>;

export const runSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  external_run_id: z.string(),
  pipeline_state: z.string(),
  status: z.string().nullable(),
  started_at: z.number().nullable(),
  ended_at: z.number().nullable(),
  /** camelCase, as it is stored: a record of the run, not a resource. */
  cluster: clusterFactsSchema.nullable(),
  /** The platform's configuration of the cluster (a Databricks `new_cluster`), reported or described. */
  cluster_config: z.record(z.string(), z.unknown()).nullable(),
  eventlog_uri: z.string().nullable(),
  eventlog_bytes: z.number().nullable(),
  input_bytes: z.number().nullable(),
  cost: runCostSchema.nullable(),
  /** Set while the cost waits for the platform's bill (`cost` is then null); null otherwise. */
  cost_pending: runCostPendingSchema.nullable(),
  on_recommendation_id: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type RunResource = z.infer<typeof runSchema>;

export const profileSummarySchema = z.object({
  applicationId: z.string().nullable(),
  applicationName: z.string().nullable(),
  sparkVersion: z.string().nullable(),
  durationMs: z.number().nullable(),
  jobs: z.number(),
  failedJobs: z.number(),
  stages: z.number(),
  tasks: z.number(),
  executorsMax: z.number(),
  coresPerExecutor: z.number(),
  inputBytes: z.number(),
  shuffleReadBytes: z.number(),
  shuffleWriteBytes: z.number(),
  spillBytes: z.number(),
  /** Core time in tasks: the share of the executors' core time their tasks ran, 0..1. */
  utilization: z.number(),
  /** Core time on CPU: the executors' CPU time over their core time, 0..1 (null: no executor cores logged). */
  coreTimeOnCpu: z.number().nullable(),
  gcTimeMs: z.number(),
  executorRunTimeMs: z.number(),
  platform: z.string(),
  findings: z.array(z.object({ id: z.string(), severity: z.string(), message: z.string() })),
});
export type ProfileSummaryResource = z.infer<typeof profileSummarySchema>;

export const runDetailSchema = runSchema.extend({
  cluster_timeline: z.unknown(),
  profile_summary: profileSummarySchema.nullable(),
});
export type RunDetailResource = z.infer<typeof runDetailSchema>;

export const runListSchema = listOf(runSchema);

export const runParams = idParams.extend({ runId: z.string().min(1).max(100) });

const noControlCharacters = /^[^\p{Cc}]*$/u;

/** The caller's id of a run (its idempotency key in the project): 1–200 characters, no control characters. */
export const externalRunIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(noControlCharacters, 'must not hold control characters');

/** The outcome a caller reports for a run (SUCCESS, FAILED…): 1–50 characters, no control characters. */
export const runStatusSchema = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(noControlCharacters, 'must not hold control characters');

/** `POST /projects/:id/runs` as JSON: an event log to fetch (multipart uploads carry files instead). */
export const runUriBody = z.object({
  eventlog_uri: z.string().min(1).max(2000),
  external_run_id: externalRunIdSchema.optional(),
  cluster_report: z.unknown().optional(),
  status: runStatusSchema.optional(),
});
