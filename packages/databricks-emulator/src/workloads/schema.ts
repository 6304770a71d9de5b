import { z } from 'zod';

/** One Spark stage of a workload, at data scale 1 and on the reference CPU (m5 = 1). */
export const stageModelSchema = z.object({
  id: z.number().int().nonnegative(),
  name: z.string(),
  parents: z.array(z.number().int().nonnegative()).default([]),
  tasks: z.number().int().positive(),
  /** Median CPU seconds per task on a reference core. */
  cpuSecondsPerTask: z.number().nonnegative(),
  /** Log-normal sigma of the task-time spread; skewed stages have a large value. */
  skew: z.number().nonnegative().default(0.25),
  inputBytes: z.number().nonnegative().default(0),
  outputBytes: z.number().nonnegative().default(0),
  shuffleReadBytes: z.number().nonnegative().default(0),
  shuffleWriteBytes: z.number().nonnegative().default(0),
  /** Working set one task needs in execution memory; above the available share it spills. */
  memoryPerTaskBytes: z.number().nonnegative().default(0),
  /** Share of the working set that cannot spill (hash tables, broadcast); above memory it is an OOM. */
  unspillableFraction: z.number().min(0).max(1).default(0.1),
  /** Share of the CPU time Photon can accelerate. */
  photonEligible: z.number().min(0).max(1).default(0.5),
  /** Whether the stage's task count follows data size (scans) or stays fixed (shuffle partitions). */
  tasksScaleWithData: z.boolean().default(false),
});

export const jobModelSchema = z.object({
  name: z.string(),
  stages: z.array(stageModelSchema).min(1),
});

export const workloadSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'workload names are kebab-case'),
  description: z.string().default(''),
  jobs: z.array(jobModelSchema).min(1),
  /** Photon speed-up of the eligible CPU time (1 = none, 3 = three times faster). */
  photonSpeedup: z.number().min(1).default(1),
  /** Data growth per simulated week, e.g. 0.05 for 5 %. */
  growthPerWeek: z.number().min(0).default(0),
  /** Driver-side time between consecutive Spark jobs, seconds. */
  driverGapSeconds: z.number().nonnegative().default(2),
  /** Scripted code change: from this run index on, every stage's CPU and memory are scaled. */
  codeChange: z
    .object({
      fromRunIndex: z.number().int().nonnegative(),
      cpuScale: z.number().positive().default(1),
      memoryScale: z.number().positive().default(1),
      shuffleScale: z.number().positive().default(1),
    })
    .optional(),
  source: z.string().optional(),
});

export type StageModel = z.infer<typeof stageModelSchema>;
export type JobModel = z.infer<typeof jobModelSchema>;
export type Workload = z.infer<typeof workloadSchema>;
export type WorkloadInput = z.input<typeof workloadSchema>;
