import type { RunsTable } from 'setpoint/store/database-schema';

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
    cost: null,
    input_bytes: null,
    recommendation_id: null,
    error: null,
    created_at: 0,
    updated_at: 0,
    ...fields,
  };
}
