import type { RecommendationService } from 'setpoint/service/recommendations/recommendation-service';
import { eventually } from '../databricks/integration-harness.js';

/**
 * The project's newest successful recommendation once none is still queued. Every processed run asks
 * for one and it is fitted after the run reads DONE, so "the latest" read earlier may be an older run's.
 */
export function settledRecommendation(
  recommendations: Pick<RecommendationService, 'list' | 'latest'>,
  projectId: string,
  timeoutMs = 300_000,
) {
  return eventually(
    async () => {
      const queued = await recommendations.list(projectId, { limit: 1, offset: 0, state: 'PENDING' });
      if (queued.total > 0) return undefined;
      return recommendations.latest(projectId);
    },
    `the recommendations of ${projectId} to settle`,
    timeoutMs,
  );
}
