import type { RunProfile } from '../../eventlog/run-profile.js';
import type { RecommenderRun } from '../../service/recommendations/recommender.js';
import { type RunRow, toRun } from '../../service/runs/run-records.js';

/** An analyzed run's row as the recommender reads it. */
export function recommenderRunOf(row: RunRow): RecommenderRun {
  const run = toRun(row);
  return {
    id: run.id,
    externalRunId: run.externalRunId,
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    // the parse step stores both with the profile; analyzed runs always have them
    cluster: run.clusterFacts!,
    clusterConfig: run.clusterConfig,
    profile: JSON.parse(row.profile ?? 'null') as RunProfile,
    cost: run.cost!,
    inputBytes: run.inputBytes,
    recommendationId: run.recommendationId,
  };
}
