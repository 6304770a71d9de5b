import { z } from 'zod';

/**
 * The EMR Serverless API shapes Setpoint reads (service model 2021-07-13, as botocore and the AWS SDK ship it),
 * validated at the edge. Timestamps arrive as `Date` and are kept as epoch milliseconds; members Setpoint does
 * not read are dropped.
 */
const epochMs = z.date().transform((date) => date.getTime());

export const jobRunStates = [
  'SUBMITTED',
  'PENDING',
  'SCHEDULED',
  'RUNNING',
  'SUCCESS',
  'FAILED',
  'CANCELLING',
  'CANCELLED',
  'QUEUED',
] as const;
/** States after which a job run changes no more (and is billed). */
export const finishedJobRunStates = ['SUCCESS', 'FAILED', 'CANCELLED'] as const;

export const serverlessApplicationSchema = z.object({
  applicationId: z.string(),
  name: z.string().optional(),
  releaseLabel: z.string(),
  type: z.string(),
  state: z.string(),
  /** X86_64 unless the application says ARM64 (the price differs). */
  architecture: z.enum(['ARM64', 'X86_64']).default('X86_64'),
});
export type ServerlessApplication = z.infer<typeof serverlessApplicationSchema>;

/** `ApplicationSummary` of ListApplications: the application's id is `id` there. */
export const serverlessApplicationSummarySchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  releaseLabel: z.string(),
  type: z.string(),
  state: z.string(),
  architecture: z.enum(['ARM64', 'X86_64']).default('X86_64'),
});
export type ServerlessApplicationSummary = z.infer<typeof serverlessApplicationSummarySchema>;

export const jobRunSummarySchema = z.object({
  applicationId: z.string(),
  id: z.string(),
  name: z.string().optional(),
  state: z.enum(jobRunStates),
  createdAt: epochMs,
  updatedAt: epochMs,
});
export type JobRunSummary = z.infer<typeof jobRunSummarySchema>;

/** `ResourceUtilization`: every member optional in the model; absent reads as 0. */
const resourceUtilizationSchema = z
  .object({
    vCPUHour: z.number().nonnegative().default(0),
    memoryGBHour: z.number().nonnegative().default(0),
    storageGBHour: z.number().nonnegative().default(0),
  })
  .optional();

export const jobRunSchema = z.object({
  applicationId: z.string(),
  jobRunId: z.string(),
  name: z.string().optional(),
  state: z.enum(jobRunStates),
  stateDetails: z.string().optional(),
  releaseLabel: z.string(),
  createdAt: epochMs,
  updatedAt: epochMs,
  startedAt: epochMs.optional(),
  endedAt: epochMs.optional(),
  totalExecutionDurationSeconds: z.number().int().nonnegative().optional(),
  /** What the run ran: its entry point (the job when the run has no name) and its Spark parameters. */
  jobDriver: z
    .object({
      sparkSubmit: z
        .object({ entryPoint: z.string(), sparkSubmitParameters: z.string().optional() })
        .optional(),
    })
    .optional(),
  /** What AWS billed (the one-minute worker minimum and storage over 20 GB per worker included). */
  billedResourceUtilization: resourceUtilizationSchema,
  /** What the run used. */
  totalResourceUtilization: resourceUtilizationSchema,
});
export type JobRun = z.infer<typeof jobRunSchema>;
