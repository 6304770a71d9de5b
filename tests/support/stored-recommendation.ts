import type { Kysely } from 'kysely';
import type { Database } from 'setpoint/store/database-schema';

/** A successful recommendation as the pipeline stores one, for tests and benches that need no run history. */
export interface StoredRecommendation {
  projectId: string;
  id: string;
  configuration: Record<string, unknown>;
  explanation: string;
  decision?: Record<string, unknown> | null;
  phase?: string;
  requestedBy?: string;
  now?: number;
}

export async function storeRecommendation(db: Kysely<Database>, entry: StoredRecommendation): Promise<void> {
  const now = entry.now ?? Date.now();
  await db
    .insertInto('recommendations')
    .values({
      id: entry.id,
      project_id: entry.projectId,
      idempotency_key: null,
      state: 'SUCCESS',
      phase: entry.phase ?? 'LEARNING',
      configuration: JSON.stringify(entry.configuration),
      prediction: null,
      explanation: entry.explanation,
      decision: entry.decision ? JSON.stringify(entry.decision) : null,
      based_on_run_id: null,
      error: null,
      requested_by: entry.requestedBy ?? 'test',
      apply_requested_at: null,
      apply_requested_by: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
