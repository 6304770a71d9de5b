import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../store/ids.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { RunRepository } from '../runs/run-repository.js';
import type { RecommendationEventPublisher } from './recommendation-events.js';
import type { RecommendationRecord, RecommendationState } from './recommendation-records.js';
import type { RecommendationRepository } from './recommendation-repository.js';

export type { RecommendationRecord, RecommendationState } from './recommendation-records.js';

export function createRecommendationService({
  recommendations,
  projects,
  runs,
  queue,
  events,
}: {
  recommendations: RecommendationRepository;
  projects: Pick<ProjectRepository, 'assertExists'>;
  runs: Pick<RunRepository, 'latestProcessedId' | 'latestPendingId'>;
  queue: Pick<JobQueue, 'enqueue'>;
  events: RecommendationEventPublisher;
}) {
  async function get(projectId: string, id: string): Promise<RecommendationRecord> {
    const found = await recommendations.findInProject(projectId, id);
    if (!found)
      throw new NotFoundError(
        'RECOMMENDATION_NOT_FOUND',
        `recommendation ${id} does not exist in project ${projectId}`,
      );
    return found;
  }

  /**
   * Creates a PENDING recommendation and queues its generation. With an idempotency key (the
   * pipeline passes `run:<id>`), a second call returns the first recommendation instead.
   *
   * Requested while the project's only runs are still being processed (a client that uploads and
   * asks at once), the recommendation waits for the newest of them: it is the one that run's own
   * pipeline produces (same idempotency key), generated when the run is processed, or FAILURE when
   * the run fails. The wait is bounded by the run's processing (job attempts, leases, limits).
   *
   * It learns from the project's newest analyzed runs when it is computed (and is then based on the newest
   * of them), unless `pinned`: a request that names its run learns from the runs up to that run only (what
   * Setpoint would have said after it), and never replaces a recommendation learned from newer runs.
   */
  async function request(
    projectId: string,
    options: {
      actor: string;
      basedOnRunId?: string | undefined;
      pinned?: boolean | undefined;
      idempotencyKey?: string | undefined;
    },
  ): Promise<RecommendationRecord> {
    await projects.assertExists(projectId);
    const basedOnRunId = options.basedOnRunId ?? (await runs.latestProcessedId(projectId));
    if (!basedOnRunId) {
      const pending = await runs.latestPendingId(projectId);
      if (pending) {
        return recommendations.insertPending({
          id: newId('rec'),
          projectId,
          basedOnRunId: pending,
          requestedBy: options.actor,
          idempotencyKey: `run:${pending}`,
          now: Date.now(),
        });
      }
      throw new ConflictError(
        'PROJECT_HAS_NO_PROCESSED_RUNS',
        `project ${projectId} has no processed run to base a recommendation on`,
      );
    }
    const rec = await recommendations.insertPending({
      id: newId('rec'),
      projectId,
      basedOnRunId,
      requestedBy: options.actor,
      idempotencyKey: options.idempotencyKey ?? null,
      now: Date.now(),
    });
    if (rec.state === 'PENDING') {
      await queue.enqueue(
        'recommendation.generate',
        { recommendationId: rec.id, ...(options.pinned && options.basedOnRunId ? { pinned: true } : {}) },
        { idempotencyKey: `recommendation.generate:${rec.id}` },
      );
    }
    return rec;
  }

  return {
    request,
    get,

    async list(
      projectId: string,
      page: { limit: number; offset: number; state?: RecommendationState | undefined },
    ) {
      await projects.assertExists(projectId);
      return recommendations.page(projectId, page);
    },

    /** The newest successful recommendation. */
    async latest(projectId: string): Promise<RecommendationRecord> {
      await projects.assertExists(projectId);
      const found = await recommendations.latestSuccessful(projectId);
      if (!found)
        throw new NotFoundError(
          'RECOMMENDATION_NOT_FOUND',
          `project ${projectId} has no successful recommendation yet`,
        );
      return found;
    },

    /**
     * A recommendation reached the cluster without a person's apply request: Setpoint wrote it by itself
     * (`auto_applied`), or a launcher started a cluster with it (`launched`). It reads APPLIED, by `actor`,
     * with an audit row of that action; no event (it is in the cluster already).
     */
    async recordApplied(
      projectId: string,
      id: string,
      actor: string,
      action: 'auto_applied' | 'launched' = 'auto_applied',
    ): Promise<void> {
      const current = await get(projectId, id);
      if (current.applyRequestedAt !== null) return;
      await recommendations.recordApplyRequest(id, actor, Date.now(), {
        entity: 'recommendation',
        entityId: id,
        action,
        actor,
        detail: { projectId },
      });
    },

    /** Records the intent to apply and emits an event; the project's platform performs it. */
    async apply(projectId: string, id: string, actor: string): Promise<RecommendationRecord> {
      const current = await get(projectId, id);
      if (current.state !== 'SUCCESS') {
        throw new ConflictError(
          'RECOMMENDATION_NOT_READY',
          `recommendation ${id} is ${current.state}; only SUCCESS can be applied`,
        );
      }
      if (current.applyRequestedAt !== null) return current;
      const now = Date.now();
      await recommendations.recordApplyRequest(id, actor, now, {
        entity: 'recommendation',
        entityId: id,
        action: 'apply_requested',
        actor,
        detail: { projectId },
      });
      events.publish({
        type: 'recommendation.apply_requested',
        projectId,
        recommendationId: id,
        actor,
        at: now,
      });
      return get(projectId, id);
    },
  };
}

export type RecommendationService = ReturnType<typeof createRecommendationService>;
