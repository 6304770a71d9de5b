import { isBadInput } from '@setpoint/foundation/errors';
import type { Logger } from '../logging/logger.js';
import type { PlatformRuntime } from '../platform-api/platform.js';
import { type JobQueue, PermanentJobError } from '../queue/job-queue.js';
import type { MaintenancePassRepository } from '../service/maintenance/maintenance-pass-repository.js';
import type { ProjectRepository } from '../service/projects/project-repository.js';
import type { LearningSummaryRepository } from '../service/recommendations/learning-summary-repository.js';
import type { RecommendationRepository } from '../service/recommendations/recommendation-repository.js';
import type { RecommendationService } from '../service/recommendations/recommendation-service.js';
import type { EventLogFetcher } from '../service/runs/eventlog-fetcher.js';
import type { RunProfiler } from '../service/runs/run-analysis.js';
import type { RunChanges, RunRecord } from '../service/runs/run-records.js';
import type { RunRepository } from '../service/runs/run-repository.js';
import type { WorkspaceFacts, WorkspaceService } from '../service/workspaces/workspace-service.js';
import type { BlobStore } from '../store/blobs/blob-store.js';

/** What the pipeline asks of a run's platform, all of it from the platform's runtime: read, price, recommend. */
export type PipelinePlatform = Pick<PlatformRuntime, 'runs' | 'coster' | 'recommender'>;

/** The one door from the pipeline to the platforms: the runtime of the platform that serves a workspace. */
export interface PipelinePlatforms {
  /** The platform of a project's workspace (null: a project without one, served by the first registered). */
  forWorkspace(workspace: Pick<WorkspaceFacts, 'platform'> | null): PipelinePlatform;
}

/** What the pipeline's steps are given: repositories and services, the event-log engine, the platforms. */
export interface PipelineDependencies {
  runs: RunRepository;
  /** One-time passes over old runs that have finished (so a start-up skips them). */
  maintenancePasses: MaintenancePassRepository;
  projectRecords: Pick<ProjectRepository, 'find'>;
  /** Each project's runs that left its learning window, folded (read and advanced by recommendations). */
  learningSummaries: LearningSummaryRepository;
  recommendationRecords: Pick<RecommendationRepository, 'find' | 'since' | 'complete'>;
  recommendations: Pick<RecommendationService, 'request'>;
  workspaces: Pick<WorkspaceService, 'facts'>;
  platforms: PipelinePlatforms;
  blobs: BlobStore;
  fetcher: EventLogFetcher;
  profiler: RunProfiler;
  queue: Pick<JobQueue, 'enqueue'>;
  /** Scratch space for downloads (same filesystem as a local blob store, so files move, not copy). */
  scratchDir: string;
  maxEventLogBytes: number;
  /** How many of a project's newest analyzed runs a recommendation reads (its learning window). */
  recommendationWindowRuns: number;
  /** How far past the server's clock a run's times may be (`runClockToleranceHours`); a day by default. */
  runClockToleranceMs?: number;
  logger: Logger;
  onIngestedBytes?(bytes: number): void;
  /** A recommendation reached SUCCESS (the project's platform may apply it). */
  onRecommendationReady?(projectId: string, recommendationId: string): Promise<void>;
}

/** Bad input will fail the same way on every retry: park it at once. */
export function permanentIfInvalid(error: unknown): never {
  if (isBadInput(error)) throw new PermanentJobError(error.message, { cause: error });
  throw error;
}

/**
 * Writes a step's result only if the run is still in the state the step loaded it in (fencing): an
 * attempt that outlived its lease while another attempt moved the run on is discarded, logged, and
 * queues nothing further. Returns whether the result was written.
 */
export async function advanceRun(
  deps: Pick<PipelineDependencies, 'runs' | 'logger'>,
  run: RunRecord,
  changes: RunChanges,
  step: string,
): Promise<boolean> {
  const from = run.pipelineState;
  if (await deps.runs.advance(run.id, from, changes)) return true;
  deps.logger.warn(
    { runId: run.id, step, expected: from },
    'stale attempt discarded: the run moved on while this step ran',
  );
  return false;
}

export async function loadRun(deps: Pick<PipelineDependencies, 'runs'>, runId: string): Promise<RunRecord> {
  const run = await deps.runs.find(runId);
  if (!run) throw new PermanentJobError(`run ${runId} no longer exists`);
  return run;
}

/** The run's project and the facts of its workspace (null for a project without one). */
export async function projectOf(
  deps: Pick<PipelineDependencies, 'projectRecords' | 'workspaces'>,
  projectId: string,
) {
  const project = await deps.projectRecords.find(projectId);
  if (!project) throw new PermanentJobError(`project ${projectId} no longer exists`);
  return { project, workspace: await deps.workspaces.facts(project.workspaceId) };
}
