import { z } from 'zod';
import { finishedJobRunStates, type JobRun, jobRunStates } from '../api/emr-serverless-schema.js';

const epochMs = z.number().int().nonnegative();
const utilizationSchema = z.object({
  vCPUHour: z.number().nonnegative(),
  memoryGBHour: z.number().nonnegative(),
  storageGBHour: z.number().nonnegative(),
});

/**
 * What Setpoint records about one EMR Serverless job run (from GetJobRun): the application, the run's timeline
 * and outcome, and what AWS billed it (`billedResourceUtilization`, null while it has none). It is what the run
 * is priced from and what marks a run of a project as one on EMR Serverless rather than on an EMR cluster.
 */
export const emrServerlessRunReportSchema = z.object({
  platform: z.literal('emr-serverless'),
  region: z.string(),
  application: z.object({
    id: z.string(),
    name: z.string().nullable(),
    releaseLabel: z.string(),
    architecture: z.enum(['ARM64', 'X86_64']),
  }),
  jobRun: z.object({
    id: z.string(),
    name: z.string().nullable(),
    /** The job it is a run of (`emrServerlessJobKey`). */
    job: z.string(),
    entryPoint: z.string().nullable(),
    state: z.enum(jobRunStates),
    stateDetails: z.string().nullable(),
    createdAt: epochMs,
    startedAt: epochMs.nullable(),
    endedAt: epochMs.nullable(),
    updatedAt: epochMs,
    totalExecutionDurationSeconds: z.number().int().nonnegative().nullable(),
  }),
  billed: utilizationSchema.nullable(),
  used: utilizationSchema.nullable(),
});
export type EmrServerlessRunReport = z.infer<typeof emrServerlessRunReportSchema>;

/** Whether a stored report is an EMR Serverless job run's. */
export function isEmrServerlessReport(report: unknown): report is EmrServerlessRunReport {
  return emrServerlessRunReportSchema.safeParse(report).success;
}

export const isFinishedJobRun = (state: JobRun['state']) =>
  finishedJobRunStates.some((finished) => finished === state);

/**
 * The span an SLA holds the run to, from the job run's timeline: from its submission (`createdAt`: the queue
 * and the workers' start-up are the form's, as a waiting pipeline lives through them) to its end; without an
 * end, its last update (EMR Serverless sets `endedAt` on every finished run; older answers may lack it).
 */
export function jobRunSpan(run: EmrServerlessRunReport['jobRun']): { startMs: number; endMs: number } {
  const endMs = run.endedAt ?? run.updatedAt;
  return { startMs: run.createdAt, endMs: Math.max(run.createdAt, endMs) };
}

/** The report of a job run as GetJobRun answered it (a billed utilization of nothing is no bill: null). */
export function emrServerlessRunReport(input: {
  region: string;
  application: { id: string; name: string | null; releaseLabel: string; architecture: 'ARM64' | 'X86_64' };
  run: JobRun;
  job: string;
}): EmrServerlessRunReport {
  const { run } = input;
  const billed = run.billedResourceUtilization;
  const used = run.totalResourceUtilization;
  return {
    platform: 'emr-serverless',
    region: input.region,
    application: input.application,
    jobRun: {
      id: run.jobRunId,
      name: run.name ?? null,
      job: input.job,
      entryPoint: run.jobDriver?.sparkSubmit?.entryPoint ?? null,
      state: run.state,
      stateDetails: run.stateDetails ?? null,
      createdAt: run.createdAt,
      startedAt: run.startedAt ?? null,
      endedAt: run.endedAt ?? null,
      updatedAt: run.updatedAt,
      totalExecutionDurationSeconds: run.totalExecutionDurationSeconds ?? null,
    },
    billed: billed && billed.vCPUHour + billed.memoryGBHour + billed.storageGBHour > 0 ? billed : null,
    used: used ?? null,
  };
}
