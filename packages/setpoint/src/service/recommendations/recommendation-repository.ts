import type { ProjectPhase } from '@setpoint/api-contract';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, RecommendationsTable } from '../../store/database-schema.js';
import { parseJsonColumn } from '../../store/json-column.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';
import type { ClusterConfiguration, Prediction, RecommendationDecision } from '../recommender/recommender.js';
import type { RecommendationRecord, RecommendationState } from './recommendation-records.js';

function toRecommendation(row: Selectable<RecommendationsTable>): RecommendationRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    state: row.state as RecommendationState,
    phase: row.phase as ProjectPhase | null,
    configuration: parseJsonColumn<ClusterConfiguration>(row.configuration),
    prediction: parseJsonColumn<Prediction>(row.prediction),
    explanation: row.explanation,
    decision: parseJsonColumn<RecommendationDecision>(row.decision),
    basedOnRunId: row.based_on_run_id,
    basedOnRunPrunedAt: row.based_on_run_pruned_at,
    error: row.error,
    requestedBy: row.requested_by,
    applyRequestedAt: row.apply_requested_at,
    applyRequestedBy: row.apply_requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * What a recommendation knows decides which is newer, not when it was requested: the newest run it learned
 * from (its `based_on_run_id`; its own request time when that run was pruned or it names none), then the
 * later request. Two runs of a project processed at once request their recommendations in either order,
 * and their generation finishes in either order, so the one requested last can have learned from fewer
 * runs. Ordered by request time, it would replace a recommendation from a newer window: the project would
 * show, auto-apply and ask approval for a stale change.
 */
function newestKnowledgeFirst(db: Kysely<Database> | Transaction<Database>, projectId: string) {
  return db
    .selectFrom('recommendations')
    .leftJoin('runs', 'runs.id', 'recommendations.based_on_run_id')
    .selectAll('recommendations')
    .where('recommendations.project_id', '=', projectId)
    .orderBy(sql`coalesce(runs.created_at, recommendations.created_at)`, 'desc')
    .orderBy('recommendations.created_at', 'desc')
    .orderBy('recommendations.id', 'desc');
}

/** Whether a completed recommendation became the project's newest, or was kept as history only. */
export type CompletionOutcome = 'newest' | 'history' | 'not-pending';

/** Data access for recommendations. */
export function createRecommendationRepository(db: Kysely<Database>) {
  return {
    async find(recommendationId: string): Promise<RecommendationRecord | undefined> {
      const row = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('id', '=', recommendationId)
        .executeTakeFirst();
      return row ? toRecommendation(row) : undefined;
    },

    async findInProject(projectId: string, id: string): Promise<RecommendationRecord | undefined> {
      const row = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toRecommendation(row) : undefined;
    },

    /**
     * Inserts a PENDING recommendation. With an idempotency key already taken, nothing is inserted and
     * the recommendation that holds the key is returned.
     */
    async insertPending(values: {
      id: string;
      projectId: string;
      basedOnRunId: string;
      requestedBy: string;
      idempotencyKey: string | null;
      now: number;
    }): Promise<RecommendationRecord> {
      await db
        .insertInto('recommendations')
        .values({
          id: values.id,
          project_id: values.projectId,
          idempotency_key: values.idempotencyKey,
          state: 'PENDING',
          phase: null,
          configuration: null,
          prediction: null,
          explanation: null,
          decision: null,
          based_on_run_id: values.basedOnRunId,
          error: null,
          requested_by: values.requestedBy,
          apply_requested_at: null,
          apply_requested_by: null,
          created_at: values.now,
          updated_at: values.now,
        })
        .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
        .execute();
      const query = db.selectFrom('recommendations').selectAll();
      const row = values.idempotencyKey
        ? await query.where('idempotency_key', '=', values.idempotencyKey).executeTakeFirstOrThrow()
        : await query.where('id', '=', values.id).executeTakeFirstOrThrow();
      return toRecommendation(row);
    },

    async page(
      projectId: string,
      page: { limit: number; offset: number; state?: RecommendationState | undefined },
    ) {
      let base = db.selectFrom('recommendations').where('project_id', '=', projectId);
      if (page.state) base = base.where('state', '=', page.state);
      let newestFirst = newestKnowledgeFirst(db, projectId);
      if (page.state) newestFirst = newestFirst.where('recommendations.state', '=', page.state);
      const [rows, count] = await Promise.all([
        newestFirst.limit(page.limit).offset(page.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toRecommendation), total: Number(count.count) };
    },

    /** The project's newest successful recommendation: the one learned from its newest runs. */
    async latestSuccessful(projectId: string): Promise<RecommendationRecord | undefined> {
      const row = await newestKnowledgeFirst(db, projectId)
        .where('recommendations.state', '=', 'SUCCESS')
        .limit(1)
        .executeTakeFirst();
      return row ? toRecommendation(row) : undefined;
    },

    /**
     * A project's newest `limit` recommendations created since `since`, oldest first (what the recommender
     * sees of its past; bounded however many the project has).
     */
    async since(projectId: string, since: number, limit: number): Promise<RecommendationRecord[]> {
      const rows = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('created_at', '>=', since)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.reverse().map(toRecommendation);
    },

    /**
     * Fills a PENDING recommendation with what it learned up to the run `basedOnRunId` (the newest of its
     * window) and, in the same transaction, when it is now the project's newest, moves the project to the
     * phase it judged (with the audit row) when that differs. `history` when a recommendation learned from
     * newer runs exists: this one is stored but moves nothing. `not-pending`, and nothing written, when it
     * was no longer pending.
     */
    async complete(
      id: string,
      result: {
        basedOnRunId: string;
        phase: ProjectPhase;
        configuration: ClusterConfiguration;
        prediction: Prediction;
        explanation: string;
        decision?: RecommendationDecision | undefined;
      },
      phaseChange: { projectId: string; to: ProjectPhase; audit: AuditEntry } | null,
      now = Date.now(),
    ): Promise<CompletionOutcome> {
      return db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('recommendations')
          .set({
            state: 'SUCCESS',
            based_on_run_id: result.basedOnRunId,
            phase: result.phase,
            configuration: JSON.stringify(result.configuration),
            prediction: JSON.stringify(result.prediction),
            explanation: result.explanation,
            decision: result.decision ? JSON.stringify(result.decision) : null,
            updated_at: now,
          })
          .where('id', '=', id)
          .where('state', '=', 'PENDING')
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return 'not-pending';
        const { project_id: projectId } = await trx
          .selectFrom('recommendations')
          .select('project_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const newest = await newestKnowledgeFirst(trx, projectId)
          .where('recommendations.state', '=', 'SUCCESS')
          .limit(1)
          .executeTakeFirst();
        if (newest?.id !== id) return 'history';
        if (phaseChange) {
          await trx
            .updateTable('projects')
            .set({ phase: phaseChange.to, updated_at: now })
            .where('id', '=', phaseChange.projectId)
            .execute();
          await recordAudit(trx, phaseChange.audit, now);
        }
        return 'newest';
      });
    },

    /** Fails the PENDING recommendations that wait for a run which failed. */
    async failWaitingOn(runId: string, error: string, now = Date.now()): Promise<void> {
      await db
        .updateTable('recommendations')
        .set({ state: 'FAILURE', error, updated_at: now })
        .where('based_on_run_id', '=', runId)
        .where('state', '=', 'PENDING')
        .execute();
    },

    /** A PENDING recommendation that cannot be computed. */
    async fail(id: string, error: string, now = Date.now()): Promise<void> {
      await db
        .updateTable('recommendations')
        .set({ state: 'FAILURE', error, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'PENDING')
        .execute();
    },

    async recordApplyRequest(id: string, actor: string, now: number, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('recommendations')
          .set({ apply_requested_at: now, apply_requested_by: actor, updated_at: now })
          .where('id', '=', id)
          .where('apply_requested_at', 'is', null)
          .execute();
        await recordAudit(trx, audit, now);
      });
    },
  };
}

export type RecommendationRepository = ReturnType<typeof createRecommendationRepository>;
