import { awsAttributesSchema, azureAttributesSchema } from '@setpoint/api-contract/databricks';
import { z } from 'zod';
import { serverlessReportSchema } from '../serverless/serverless-report.js';

/**
 * The cluster report a client uploads with a run (the reference library's format): the Databricks
 * cluster as `clusters/get` returned it after termination, its events, tasks, cloud instances and
 * their timelines. Only the fields Setpoint reads are typed; the rest is kept as sent.
 */
export const reportedClusterSchema = z
  .object({
    cluster_id: z.string().optional(),
    spark_version: z.string().optional(),
    node_type_id: z.string().optional(),
    driver_node_type_id: z.string().optional(),
    num_workers: z.number().int().nonnegative().optional(),
    autoscale: z.object({ min_workers: z.number().int(), max_workers: z.number().int() }).optional(),
    runtime_engine: z.string().optional(),
    aws_attributes: awsAttributesSchema.optional(),
    azure_attributes: azureAttributesSchema.optional(),
    custom_tags: z.record(z.string(), z.string()).optional(),
    start_time: z.number().optional(),
    terminated_time: z.number().optional(),
  })
  .loose();

export const clusterReportSchema = z
  .object({
    plan_type: z.string().optional(),
    compute_type: z.string().optional(),
    cluster: reportedClusterSchema,
    cluster_events: z
      .object({ events: z.array(z.record(z.string(), z.unknown())), total_count: z.number().optional() })
      .loose()
      .optional(),
    tasks: z
      .array(
        z
          .object({
            task_key: z.string().optional(),
            start_time: z.number().optional(),
            end_time: z.number().optional(),
            state: z.object({ result_state: z.string().optional() }).loose().optional(),
          })
          .loose(),
      )
      .optional(),
    instances: z.array(z.record(z.string(), z.unknown())).optional(),
    instance_timelines: z
      .array(
        z
          .object({
            instance_id: z.string(),
            first_seen_running_time: z.union([z.string(), z.number()]).optional(),
            last_seen_running_time: z.union([z.string(), z.number()]).optional(),
          })
          .loose(),
      )
      .optional(),
    volumes: z.array(z.record(z.string(), z.unknown())).optional(),
    serverless: serverlessReportSchema.optional(),
    /**
     * The node types that really ran, from system.compute.node_timeline: with flexible node types
     * (`worker_node_type_flexibility.alternate_node_type_ids`) Databricks may launch an alternate instead
     * of the requested type. Node-minutes per type and role; absent when the timeline was not read.
     */
    node_types_ran: z
      .array(z.object({ node_type: z.string(), driver: z.boolean(), node_minutes: z.number().nonnegative() }))
      .optional(),
  })
  .loose();

export type ClusterReport = z.infer<typeof clusterReportSchema>;
export type ReportedCluster = z.infer<typeof reportedClusterSchema>;
