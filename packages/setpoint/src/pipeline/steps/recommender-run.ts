import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { RecommenderRun } from '../../service/recommendations/recommender-run.js';
import { type RunCost, type RunRow, toRun } from '../../service/runs/run-records.js';
import { parseJsonColumn } from '../../store/json-column.js';

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
    // what the model reads of the profile; the window never reads profiles themselves
    profile: JSON.parse(row.model_profile ?? 'null') as ModelProfile,
    // as stored: a cost still pending its bill is the recommender's to weigh (its runtime counts, its $0 not)
    cost: parseJsonColumn<RunCost>(row.cost)!,
    inputBytes: run.inputBytes,
    recommendationId: run.recommendationId,
  };
}
