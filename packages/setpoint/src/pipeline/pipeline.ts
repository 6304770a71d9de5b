import type { CoreJobHandlers } from '../queue/job-queue.js';
import { modelProfileBackfill } from './model-profile-backfill.js';
import { orphanSweep, type SweepResult } from './orphan-sweep.js';
import { overheadBackfill } from './overhead-backfill.js';
import type { PipelineDependencies } from './pipeline-context.js';
import { stallRecovery } from './stall-recovery.js';
import { costStep } from './steps/cost-step.js';
import { ingestStep } from './steps/ingest-step.js';
import { parseStep } from './steps/parse-step.js';
import { recommendStep } from './steps/recommend-step.js';
import { requestRecommendationStep } from './steps/request-recommendation-step.js';

export type { PipelineDependencies } from './pipeline-context.js';

/**
 * The processing pipeline, one queued job per step, one file per step: ingest → parse → cost → request a
 * recommendation → recommend. Every step first checks whether its result is already stored, so re-running
 * a step (retry, crashed worker) never duplicates a run or a recommendation, and writes its result in
 * one update before queueing the next step. Parked jobs are recorded by the parked-job service.
 */
export function createPipeline(deps: PipelineDependencies): {
  handlers: CoreJobHandlers;
  resumeStalledRuns(stalledForMs: number): Promise<number>;
  sweepOrphans(minAgeMs: number, now?: number): Promise<SweepResult>;
  backfillRunOverhead(batchSize?: number): Promise<{ split: number; kept: number }>;
  backfillModelProfiles(pageSize?: number): Promise<{ done: number; recapped: number }>;
} {
  const requestRecommendation = requestRecommendationStep(deps);
  return {
    handlers: {
      'run.ingest': ingestStep(deps),
      'run.parse': parseStep(deps),
      'run.cost': costStep(deps),
      'run.request-recommendation': requestRecommendation,
      'recommendation.generate': recommendStep(deps),
      'project.model-update': requestRecommendation,
    },
    resumeStalledRuns: stallRecovery(deps),
    sweepOrphans: orphanSweep(deps),
    backfillRunOverhead: overheadBackfill(deps),
    backfillModelProfiles: modelProfileBackfill(deps),
  };
}
