import type { RecommendationsTable, RunsTable } from 'setpoint/store/database-schema';

type RequiredRunFields = Pick<RunsTable, 'id' | 'project_id' | 'external_run_id' | 'pipeline_state'>;

/** A `runs` row written straight to the database (seeding, stalled runs): every optional column empty. */
export function runRow(fields: RequiredRunFields & Partial<RunsTable>): RunsTable {
  return {
    status: null,
    started_at: null,
    ended_at: null,
    cluster_config: null,
    cluster_timeline: null,
    cluster_report: null,
    eventlog_uri: null,
    eventlog_blob_key: null,
    eventlog_bytes: null,
    profile: null,
    model_profile: null,
    cost: null,
    input_bytes: null,
    recommendation_id: null,
    error: null,
    created_at: 0,
    updated_at: 0,
    ...fields,
  };
}

type RequiredRecommendationFields = Pick<
  RecommendationsTable,
  'id' | 'project_id' | 'state' | 'based_on_run_id' | 'created_at'
>;

/** A `recommendations` row written straight to the database, made by the pipeline, every optional column empty. */
export function recommendationRow(
  fields: RequiredRecommendationFields & Partial<RecommendationsTable>,
): RecommendationsTable {
  return {
    idempotency_key: null,
    phase: null,
    configuration: null,
    prediction: null,
    explanation: null,
    decision: null,
    based_on_run_pruned_at: null,
    error: null,
    requested_by: 'pipeline',
    apply_requested_at: null,
    apply_requested_by: null,
    updated_at: fields.created_at,
    ...fields,
  };
}
