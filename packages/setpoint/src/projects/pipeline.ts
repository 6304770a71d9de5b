import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { isAppError } from '@setpoint/foundation/errors';
import type { Kysely } from 'kysely';
import type { RunProfile } from '../eventlog/run-profile.js';
import type { Logger } from '../logging/logger.js';
import { type JobHandlers, type ParkedJob, PermanentJobError } from '../queue/job-queue.js';
import type { BlobStore } from '../store/blobs/blob-store.js';
import type { Database } from '../store/database-schema.js';
import { clusterFacts, clusterTimeline } from './cluster-facts.js';
import { extractZip, isZipFile, safeFileName } from './eventlog-bundle.js';
import type { EventLogFetcher } from './eventlog-fetcher.js';
import { parseJsonColumn } from './ids.js';
import type {
  Recommender,
  RecommenderRun,
  RunCost,
  RunCoster,
  RunProfiler,
  WorkspaceFacts,
} from './ports.js';
import { phaseAfterRun } from './project-phase.js';
import { type ProjectService, toProject } from './project-service.js';
import type { RecommendationService } from './recommendation-service.js';
import { eventLogBundle, type StoredClusterFacts, toRun } from './run-service.js';
import type { ClusterReport } from './schema.js';

export interface PipelineDependencies {
  db: Kysely<Database>;
  blobs: BlobStore;
  fetcher: EventLogFetcher;
  profiler: RunProfiler;
  coster: RunCoster;
  recommender: Recommender;
  projects: Pick<ProjectService, 'setPhase'>;
  recommendations: Pick<RecommendationService, 'request'>;
  queue: { enqueue: import('../queue/job-queue.js').JobQueue['enqueue'] };
  /** Scratch space for downloads (same filesystem as a local blob store, so files move, not copy). */
  scratchDir: string;
  maxEventLogBytes: number;
  logger: Logger;
  onIngestedBytes?(bytes: number): void;
  /** A recommendation reached SUCCESS (the platform integration may apply it). */
  onRecommendationReady?(projectId: string, recommendationId: string): Promise<void>;
}

/** Bad input (a validation AppError) will fail the same way on every retry: park it at once. */
function permanentIfInvalid(error: unknown): never {
  if (isAppError(error) && (error.kind === 'validation' || error.kind === 'not_found')) {
    throw new PermanentJobError(error.message, { cause: error });
  }
  throw error;
}

/**
 * The processing pipeline, one queued job per step. Every step first checks whether its result is
 * already stored, so re-running a step (retry, crashed worker) never duplicates a run or a
 * recommendation, and writes its result in one update before queueing the next step.
 */
export function createPipeline(deps: PipelineDependencies): {
  handlers: JobHandlers;
  onParked(job: ParkedJob): Promise<void>;
  resumeStalledRuns(stalledForMs: number): Promise<number>;
} {
  const { db } = deps;

  async function loadRun(runId: string) {
    const row = await db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!row) throw new PermanentJobError(`run ${runId} no longer exists`);
    return row;
  }

  async function workspaceFacts(workspaceId: string | null): Promise<WorkspaceFacts | null> {
    if (!workspaceId) return null;
    const row = await db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      platform: row.platform,
      cloud: row.cloud,
      region: row.region,
      planType: row.plan_type,
      computeType: row.compute_type,
    };
  }

  const handlers: JobHandlers = {
    async 'run.ingest'({ runId }, context) {
      const run = await loadRun(runId);
      if (run.eventlog_blob_key === null) {
        if (!run.eventlog_uri)
          throw new PermanentJobError(`run ${runId} has neither an event log nor an eventlog_uri`);
        await mkdir(deps.scratchDir, { recursive: true });
        const directory = await mkdtemp(path.join(deps.scratchDir, `ingest-${runId}-`));
        try {
          const name = safeFileName(new URL(run.eventlog_uri).pathname, 'eventlog');
          const downloaded = path.join(directory, name);
          deps.logger.info(
            { runId, jobId: context.jobId, attempt: context.attempt },
            'event log download started',
          );
          const bytes = await deps.fetcher.fetchTo(run.eventlog_uri, downloaded).catch(permanentIfInvalid);
          const files = (await isZipFile(downloaded))
            ? await extractZip(downloaded, directory, deps.maxEventLogBytes, new Set([name]))
            : [{ name, path: downloaded, bytes }];
          const bundle = eventLogBundle(runId);
          for (const file of files) await deps.blobs.putFile(bundle, file.name, file.path);
          await db
            .updateTable('runs')
            .set({
              eventlog_blob_key: bundle,
              eventlog_bytes: bytes,
              pipeline_state: 'PARSING',
              updated_at: Date.now(),
            })
            .where('id', '=', runId)
            .execute();
          deps.onIngestedBytes?.(bytes);
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
      }
      await deps.queue.enqueue('run.parse', { runId }, { idempotencyKey: `run.parse:${runId}` });
    },

    async 'run.parse'({ runId }) {
      const run = await loadRun(runId);
      if (run.profile === null) {
        if (!run.eventlog_blob_key) throw new PermanentJobError(`run ${runId} has no stored event log`);
        const profile = await deps.blobs
          .withLocalCopy(run.eventlog_blob_key, (directory) => deps.profiler.profile(directory))
          .catch(permanentIfInvalid);
        const report = parseJsonColumn<ClusterReport>(run.cluster_report);
        const facts = clusterFacts(report, profile);
        const stored: StoredClusterFacts = {
          facts,
          config: report ? (report.cluster as Record<string, unknown>) : null,
        };
        const taskTimes = (report?.tasks ?? [])
          .flatMap((task) => [task.start_time, task.end_time])
          .filter((t): t is number => typeof t === 'number' && t > 0);
        const resultStates = (report?.tasks ?? [])
          .map((task) => task.state?.result_state)
          .filter((s): s is string => Boolean(s));
        await db
          .updateTable('runs')
          .set({
            profile: JSON.stringify(profile),
            cluster_config: JSON.stringify(stored),
            cluster_timeline: JSON.stringify(clusterTimeline(report, profile)),
            started_at: profile.application.startTime ?? (taskTimes.length ? Math.min(...taskTimes) : null),
            ended_at: profile.application.endTime ?? (taskTimes.length ? Math.max(...taskTimes) : null),
            status: run.status ?? runStatus(resultStates, profile),
            input_bytes: profile.totals.inputBytes,
            recommendation_id: report?.cluster.custom_tags?.['setpoint:recommendation-id'] ?? null,
            pipeline_state: 'COSTING',
            updated_at: Date.now(),
          })
          .where('id', '=', runId)
          .execute();
      }
      await deps.queue.enqueue('run.cost', { runId }, { idempotencyKey: `run.cost:${runId}` });
    },

    async 'run.cost'({ runId }) {
      const run = await loadRun(runId);
      if (run.cost === null) {
        const profile = parseJsonColumn<RunProfile>(run.profile);
        if (!profile) throw new PermanentJobError(`run ${runId} has no profile to cost`);
        const project = await db
          .selectFrom('projects')
          .select('workspace_id')
          .where('id', '=', run.project_id)
          .executeTakeFirst();
        const stored = parseJsonColumn<StoredClusterFacts>(run.cluster_config);
        const cost = await deps.coster
          .cost({
            profile,
            cluster: stored?.facts ?? clusterFacts(null, profile),
            clusterReport: parseJsonColumn<ClusterReport>(run.cluster_report),
            workspace: await workspaceFacts(project?.workspace_id ?? null),
          })
          .catch(permanentIfInvalid);
        await db
          .updateTable('runs')
          .set({ cost: JSON.stringify(cost), pipeline_state: 'MODELING', updated_at: Date.now() })
          .where('id', '=', runId)
          .execute();
      }
      await deps.queue.enqueue(
        'project.model-update',
        { runId },
        { idempotencyKey: `project.model-update:${runId}` },
      );
    },

    async 'project.model-update'({ runId }) {
      const run = await loadRun(runId);
      const project = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', run.project_id)
        .executeTakeFirst();
      if (!project) throw new PermanentJobError(`project ${run.project_id} no longer exists`);
      const learningSince = project.learning_reset_at ?? 0;
      // A run from before `projects reset` is history only: it neither moves the phase nor recommends.
      if (run.created_at >= learningSince) {
        const processed = await db
          .selectFrom('runs')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('project_id', '=', run.project_id)
          .where('cost', 'is not', null)
          .where('created_at', '>=', learningSince)
          .executeTakeFirstOrThrow();
        const current = toProject(project).phase;
        const next = phaseAfterRun(current, Number(processed.count));
        if (next !== current)
          await deps.projects.setPhase(project.id, next, 'pipeline', `run ${run.external_run_id} processed`);
        await deps.recommendations.request(project.id, {
          actor: 'pipeline',
          basedOnRunId: runId,
          idempotencyKey: `run:${runId}`,
        });
      }
      if (run.pipeline_state !== 'DONE') {
        await db
          .updateTable('runs')
          .set({ pipeline_state: 'DONE', updated_at: Date.now() })
          .where('id', '=', runId)
          .execute();
      }
    },

    async 'recommendation.generate'({ recommendationId }) {
      const rec = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('id', '=', recommendationId)
        .executeTakeFirst();
      if (rec?.state !== 'PENDING') return;
      const projectRow = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', rec.project_id)
        .executeTakeFirst();
      if (!projectRow) throw new PermanentJobError(`project ${rec.project_id} no longer exists`);
      const project = toProject(projectRow);
      const runRows = await db
        .selectFrom('runs')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('profile', 'is not', null)
        .where('cost', 'is not', null)
        .where('created_at', '>=', project.learningResetAt ?? 0)
        .orderBy('created_at', 'asc')
        .execute();
      const runs: RecommenderRun[] = runRows.map((row) => {
        const run = toRun(row);
        const profile = JSON.parse(row.profile ?? 'null') as RunProfile;
        return {
          id: run.id,
          externalRunId: run.externalRunId,
          status: run.status,
          startedAt: run.startedAt,
          endedAt: run.endedAt,
          cluster: run.clusterFacts ?? clusterFacts(null, profile),
          clusterConfig: run.clusterConfig,
          profile,
          cost: run.cost as RunCost,
          inputBytes: run.inputBytes,
          recommendationId: run.recommendationId,
        };
      });
      const past = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('created_at', '>=', project.learningResetAt ?? 0)
        .orderBy('created_at', 'asc')
        .execute();
      const output = await deps.recommender
        .recommend({
          project: {
            id: project.id,
            name: project.name,
            phase: project.phase,
            settings: project.settings,
            workspace: await workspaceFacts(project.workspaceId),
          },
          basedOnRunId: rec.based_on_run_id ?? runs.at(-1)?.id ?? '',
          runs,
          recommendations: past
            .filter((row) => row.id !== rec.id)
            .map((row) => ({
              id: row.id,
              state: row.state,
              basedOnRunId: row.based_on_run_id,
              configuration: parseJsonColumn(row.configuration),
              prediction: parseJsonColumn(row.prediction),
              applyRequestedAt: row.apply_requested_at,
            })),
        })
        .catch(permanentIfInvalid);
      await db
        .updateTable('recommendations')
        .set({
          state: 'SUCCESS',
          phase: output.phase,
          configuration: JSON.stringify(output.configuration),
          prediction: JSON.stringify(output.prediction),
          explanation: output.explanation,
          updated_at: Date.now(),
        })
        .where('id', '=', rec.id)
        .where('state', '=', 'PENDING')
        .execute();
      await deps.onRecommendationReady?.(rec.project_id, rec.id);
      if (output.phase !== project.phase && project.phase !== 'PENDING_SETUP') {
        await deps.projects.setPhase(project.id, output.phase, 'pipeline', `recommendation ${rec.id}`);
      }
    },
  };

  async function onParked(job: ParkedJob): Promise<void> {
    const now = Date.now();
    await db
      .insertInto('parked_jobs')
      .values({
        queue: job.queue,
        job_id: job.jobId,
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        error: job.error,
        attempts: job.attempts,
        created_at: now,
      })
      .execute();
    const payload = job.payload as { runId?: string; recommendationId?: string };
    if (payload.runId) {
      await db
        .updateTable('runs')
        .set({ pipeline_state: 'FAILED', error: `${job.kind}: ${job.error}`, updated_at: now })
        .where('id', '=', payload.runId)
        .execute();
    }
    if (payload.recommendationId) {
      await db
        .updateTable('recommendations')
        .set({ state: 'FAILURE', error: job.error, updated_at: now })
        .where('id', '=', payload.recommendationId)
        .where('state', '=', 'PENDING')
        .execute();
    }
    deps.logger.warn(
      { kind: job.kind, jobId: job.jobId, attempts: job.attempts, error: job.error },
      'job parked',
    );
  }

  /**
   * Re-queues the current step of runs that stopped moving (a process died between storing a run and
   * queueing its next job). Steps are idempotent, so a duplicate is harmless.
   */
  async function resumeStalledRuns(stalledForMs: number): Promise<number> {
    const stepFor = {
      INGESTING: 'run.ingest',
      PARSING: 'run.parse',
      COSTING: 'run.cost',
      MODELING: 'project.model-update',
    } as const;
    const rows = await db
      .selectFrom('runs')
      .select(['id', 'pipeline_state'])
      .where('pipeline_state', 'in', Object.keys(stepFor))
      .where('updated_at', '<', Date.now() - stalledForMs)
      .limit(1000)
      .execute();
    for (const row of rows) {
      const kind = stepFor[row.pipeline_state as keyof typeof stepFor];
      await deps.queue.enqueue(kind, { runId: row.id }, { idempotencyKey: `${kind}:${row.id}` });
    }
    if (rows.length > 0) deps.logger.info({ runs: rows.length }, 'stalled runs re-queued');
    return rows.length;
  }

  return { handlers, onParked, resumeStalledRuns };
}

function runStatus(resultStates: string[], profile: RunProfile): string {
  if (resultStates.length > 0)
    return resultStates.every((state) => state === 'SUCCESS') ? 'SUCCESS' : 'FAILED';
  if (profile.application.endTime === null) return 'INCOMPLETE';
  return profile.totals.failedJobs > 0 ? 'FAILED' : 'SUCCESS';
}
