import { z } from 'zod';
import {
  emrClusterShapeSchema,
  emrMarketSchema,
  emrRoleSchema,
  emrVolumeSchema,
} from '../cluster-shape/emr-cluster-shape.js';

const epochMs = z.number().int().nonnegative();

/**
 * What Setpoint records about one EMR step run: the cluster, the step, the cluster's shape, and every
 * instance with its own timeline (from `ListInstances`). It is what the run is priced from; collection
 * builds it, and it can be uploaded with a run.
 */
export const emrRunReportSchema = z.object({
  platform: z.literal('emr'),
  region: z.string(),
  cluster: z.object({
    id: z.string().regex(/^j-[A-Z0-9]+$/),
    name: z.string(),
    releaseLabel: z.string().nullable(),
    /** Auto-terminating: launched for its steps (transient) rather than long-running. */
    transient: z.boolean(),
    logUri: z.string().nullable(),
    tags: z.record(z.string(), z.string()),
    createdAt: epochMs.nullable(),
    readyAt: epochMs.nullable(),
    endedAt: epochMs.nullable(),
    state: z.string(),
    /** Root volume per instance, GiB (EMR's `EbsRootVolumeSize`). */
    rootVolumeGb: z.number().int().positive().nullable(),
  }),
  step: z.object({
    id: z.string().regex(/^s-[A-Z0-9]+$/),
    name: z.string(),
    state: z.string(),
    startedAt: epochMs.nullable(),
    endedAt: epochMs.nullable(),
  }),
  shape: emrClusterShapeSchema,
  instances: z.array(
    z.object({
      id: z.string(),
      role: emrRoleSchema,
      instanceType: z.string(),
      market: emrMarketSchema,
      createdAt: epochMs,
      endedAt: epochMs.nullable(),
      volumes: z.array(emrVolumeSchema),
      /** The instance's private address and DNS name (absent in reports from before they were kept). */
      privateIp: z.string().nullable().optional(),
      privateDnsName: z.string().nullable().optional(),
    }),
  ),
  /**
   * What the run is charged: `cluster` when the cluster was launched for this step alone (its whole life,
   * provisioning included), `step` when the cluster is shared (each instance's overlap with the step).
   */
  scope: z.enum(['cluster', 'step']),
  eventLog: z.object({ location: z.string().nullable(), applicationId: z.string().nullable() }),
});
export type EmrRunReport = z.infer<typeof emrRunReportSchema>;
