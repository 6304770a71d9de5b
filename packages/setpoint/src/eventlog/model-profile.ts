import { keepBest, stageWeightOrder } from './profile-caps.js';
import type { RunProfile, StageProfile } from './run-profile.js';

/** What the model reads of one stage. */
export type ModelStage = Pick<
  StageProfile,
  | 'stageId'
  | 'attemptId'
  | 'name'
  | 'status'
  | 'numTasks'
  | 'tasks'
  | 'executorRunTimeMs'
  | 'executorCpuTimeMs'
  | 'peakExecutionMemoryBytes'
  | 'skewRatio'
>;

/**
 * What the optimizer and the recommenders read of a run's profile, and nothing else: stored beside the
 * profile (`runs.model_profile`) so that a recommendation reads its window of runs without reading whole
 * profiles back. A few kilobytes for a run of any size: `stages` holds at most `maxModelStages` stage
 * attempts (failed ones first, then the most task time), in stage order; `stageCount` counts them all.
 */
export interface ModelProfile {
  application: Pick<RunProfile['application'], 'startTime' | 'endTime' | 'durationMs' | 'exitCode'>;
  executors: Pick<RunProfile['executors'], 'maxConcurrent' | 'coresPerExecutor'>;
  stages: ModelStage[];
  /** Stage attempts of the run, listed or not. */
  stageCount: number;
  totals: RunProfile['totals'];
  analysis: RunProfile['analysis'];
  whatIf: RunProfile['whatIf'];
}

export const maxModelStages = 200;

export function modelProfileOf(profile: RunProfile, maxStages = maxModelStages): ModelProfile {
  const { startTime, endTime, durationMs, exitCode } = profile.application;
  return {
    application: { startTime, endTime, durationMs, exitCode },
    executors: {
      maxConcurrent: profile.executors.maxConcurrent,
      coresPerExecutor: profile.executors.coresPerExecutor,
    },
    stages: keepBest(profile.stages, maxStages, stageWeightOrder).map((stage) => ({
      stageId: stage.stageId,
      attemptId: stage.attemptId,
      name: stage.name,
      status: stage.status,
      numTasks: stage.numTasks,
      tasks: stage.tasks,
      executorRunTimeMs: stage.executorRunTimeMs,
      executorCpuTimeMs: stage.executorCpuTimeMs,
      peakExecutionMemoryBytes: stage.peakExecutionMemoryBytes,
      skewRatio: stage.skewRatio,
    })),
    stageCount: profile.stages.length + (profile.parse.omitted?.stages ?? 0),
    totals: profile.totals,
    analysis: profile.analysis,
    whatIf: profile.whatIf,
  };
}
