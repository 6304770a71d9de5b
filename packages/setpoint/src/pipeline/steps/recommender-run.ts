import type { RecommenderRun } from '../../service/recommender/recommender-run.js';
import type { AnalyzedRunRecord, ClusterFacts } from '../../service/runs/run-records.js';

/** An analyzed run as the recommender reads it. */
export function recommenderRunOf(run: AnalyzedRunRecord): RecommenderRun {
  return {
    id: run.id,
    externalRunId: run.externalRunId,
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    // the parse step stores the cluster with the profile; analyzed runs always have it
    cluster: (run.cluster?.facts ?? null) as ClusterFacts,
    clusterConfig: run.cluster?.config ?? null,
    // what the model reads of the profile; the window never reads profiles themselves
    profile: run.modelProfile,
    // as stored: a cost still pending its bill is the recommender's to weigh (its runtime counts, its $0 not)
    cost: run.cost,
    inputBytes: run.inputBytes,
    recommendationId: run.recommendationId,
  };
}
