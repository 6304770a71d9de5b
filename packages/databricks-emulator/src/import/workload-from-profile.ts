import { ValidationError } from '@setpoint/foundation/errors';
import { findNodeType } from '../physics/node-types.js';
import { type JobModel, type StageModel, type Workload, workloadSchema } from '../workloads/schema.js';

/** The parts of a RunProfile (src/eventlog) a workload model is built from. */
export interface ProfileForImport {
  source: { path: string };
  platform: { workerNodeType: string | null; photon: boolean | null };
  jobs: Array<{ jobId: number; stageIds: number[] }>;
  stages: Array<{
    stageId: number;
    attemptId: number;
    name: string;
    numTasks: number;
    parentIds: number[];
    status: string;
    tasks: number;
    executorRunTimeMs: number;
    executorCpuTimeMs: number;
    inputBytes: number;
    outputBytes: number;
    shuffleReadBytes: number;
    shuffleWriteBytes: number;
    memoryBytesSpilled: number;
    peakExecutionMemoryBytes: number;
    skewRatio: number;
  }>;
  analysis: { driverTimeMs: number };
}

type ProfileStage = ProfileForImport['stages'][number];

/** Spread of a log-normal whose largest of `tasks` draws is about `skewRatio` times the median. */
function skewSigma(skewRatio: number, tasks: number): number {
  if (tasks < 2 || skewRatio <= 1) return 0.05;
  const sigma = Math.log(skewRatio) / Math.sqrt(2 * Math.log(tasks));
  return Math.min(2, Math.max(0.05, sigma));
}

function stageModel(stage: ProfileStage, localId: number, parents: number[], cpuFactor: number): StageModel {
  const tasks = Math.max(1, stage.numTasks);
  const measuredTasks = Math.max(1, stage.tasks);
  // Executor CPU time is the work; logs without it (very old Spark) fall back to most of the run time.
  const cpuMs = stage.executorCpuTimeMs > 0 ? stage.executorCpuTimeMs : stage.executorRunTimeMs * 0.7;
  // The profile's peak is the largest task's, bounded by the memory a task had; spill is a sum over
  // tasks. An even stage that spilled filled its memory everywhere; in a skewed one the stragglers did.
  const averageSpill = stage.memoryBytesSpilled / measuredTasks;
  const evenSpill = averageSpill > 0.25 * stage.peakExecutionMemoryBytes;
  const perTaskMemory =
    (evenSpill
      ? stage.peakExecutionMemoryBytes
      : stage.peakExecutionMemoryBytes / Math.max(1, stage.skewRatio)) + averageSpill;
  return {
    id: localId,
    name: stage.name.slice(0, 120) || `stage ${stage.stageId}`,
    parents,
    tasks,
    cpuSecondsPerTask: ((cpuMs / measuredTasks) * cpuFactor) / 1000,
    skew: skewSigma(stage.skewRatio, measuredTasks),
    inputBytes: stage.inputBytes,
    outputBytes: stage.outputBytes,
    shuffleReadBytes: stage.shuffleReadBytes,
    shuffleWriteBytes: stage.shuffleWriteBytes,
    memoryPerTaskBytes: perTaskMemory,
    unspillableFraction: 0.1,
    photonEligible: 0.5,
    tasksScaleWithData: stage.inputBytes > 0,
  };
}

/**
 * Turns a parsed event log into a workload model: one job model per Spark job, one stage model per
 * stage that ran (first attempt), with CPU normalised to the reference core when the node type is known.
 * What a log cannot tell (Photon gain, the unspillable share of memory) gets neutral defaults.
 */
export function workloadFromProfile(profile: ProfileForImport, name: string): Workload {
  const nodeType = profile.platform.workerNodeType
    ? findNodeType(profile.platform.workerNodeType)
    : undefined;
  const cpuFactor = nodeType ? nodeType.cpuSpeed * (0.75 + 0.25 * nodeType.memoryBandwidth) : 1;
  const stagesById = new Map<number, ProfileStage>();
  for (const stage of profile.stages) {
    if (stage.tasks === 0 || stage.status === 'SKIPPED') continue;
    const existing = stagesById.get(stage.stageId);
    if (!existing || stage.attemptId < existing.attemptId) stagesById.set(stage.stageId, stage);
  }
  const groups =
    profile.jobs.length > 0
      ? [...profile.jobs]
          .sort((a, b) => a.jobId - b.jobId)
          .map((job) => ({ name: `job ${job.jobId}`, stageIds: job.stageIds }))
      : [{ name: 'job 0', stageIds: [...stagesById.keys()] }];
  const jobs: JobModel[] = [];
  for (const group of groups) {
    const stages = group.stageIds
      .map((id) => stagesById.get(id))
      .filter((stage): stage is ProfileStage => stage !== undefined)
      .sort((a, b) => a.stageId - b.stageId);
    if (stages.length === 0) continue;
    const localIds = new Map(stages.map((stage, index) => [stage.stageId, index]));
    jobs.push({
      name: group.name,
      stages: stages.map((stage, index) =>
        stageModel(
          stage,
          index,
          stage.parentIds
            .map((parent) => localIds.get(parent))
            .filter((id): id is number => id !== undefined && id < index),
          cpuFactor,
        ),
      ),
    });
  }
  if (jobs.length === 0) {
    throw new ValidationError(
      'WORKLOAD_EMPTY',
      `${profile.source.path} has no stages with tasks: there is nothing to model.`,
    );
  }
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new ValidationError(
      'WORKLOAD_NAME_INVALID',
      `Workload names are kebab-case (a-z, 0-9, -): ${name}`,
    );
  }
  return workloadSchema.parse({
    name,
    description: `Imported from ${profile.source.path}`,
    jobs,
    photonSpeedup: profile.platform.photon ? 1 : 1.5,
    driverGapSeconds: jobs.length > 0 ? Math.min(60, profile.analysis.driverTimeMs / jobs.length / 1000) : 2,
    source: profile.source.path,
  });
}
