import type { Logger } from '../../logging/logger.js';
import type { ParkedJob } from '../../queue/job-queue.js';
import type { RecommendationRepository } from '../recommendations/recommendation-repository.js';
import type { RunRepository } from '../runs/run-repository.js';
import type { ParkedJobRepository } from './parked-job-repository.js';

/**
 * Parking, in one place: every job that used its last attempt or failed on bad input, whichever
 * queue and whichever step (core or platform) it came from, is recorded here, and the run or
 * recommendation it was about shows the failure.
 */
export function createParkedJobService(deps: {
  parked: ParkedJobRepository;
  runs: Pick<RunRepository, 'update'>;
  recommendations: Pick<RecommendationRepository, 'fail' | 'failWaitingOn'>;
  logger: Logger;
}) {
  return {
    async park(job: ParkedJob): Promise<void> {
      const now = Date.now();
      await deps.parked.insert({
        queue: job.queue,
        job_id: job.jobId,
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        error: job.error,
        attempts: job.attempts,
        created_at: now,
      });
      const payload = job.payload as { runId?: string; recommendationId?: string };
      if (payload.runId) {
        await deps.runs.update(
          payload.runId,
          { pipelineState: 'FAILED', error: `${job.kind}: ${job.error}` },
          now,
        );
        await deps.recommendations.failWaitingOn(
          payload.runId,
          `the run it waited for failed (${job.kind}: ${job.error})`,
          now,
        );
      }
      if (payload.recommendationId) await deps.recommendations.fail(payload.recommendationId, job.error, now);
      deps.logger.warn(
        { kind: job.kind, jobId: job.jobId, attempts: job.attempts, error: job.error },
        'job parked',
      );
    },

    /** Jobs of one kind parked so far. */
    count: (kind: string) => deps.parked.count(kind),

    async list(page: { limit: number; offset: number }) {
      const { rows, total } = await deps.parked.page(page);
      return {
        items: rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as unknown })),
        total,
      };
    },
  };
}

export type ParkedJobService = ReturnType<typeof createParkedJobService>;
