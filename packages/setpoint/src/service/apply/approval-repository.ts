import type { ApprovalState } from '@setpoint/api-contract';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { ApplyApprovalsTable, Database } from '../../store/database-schema.js';

/** A learning run that waits, or waited, for a person's approval before Setpoint writes it. */
export interface Approval {
  recommendationId: string;
  projectId: string;
  state: ApprovalState;
  /** The learning run it would be (1 = the first recommendation), when its decision says. */
  learningRun: number | null;
  waitingSince: number;
  decidedAt: number | null;
  decidedBy: string | null;
  reason: string | null;
}

/** What became of an approval: who decided, when, and why. */
export interface ApprovalOutcome {
  at: number;
  by: string;
  reason: string | null;
}

function toApproval(row: Selectable<ApplyApprovalsTable>): Approval {
  return {
    recommendationId: row.recommendation_id,
    projectId: row.project_id,
    state: row.state as ApprovalState,
    learningRun: row.learning_run,
    waitingSince: row.waiting_since,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    reason: row.reason,
  };
}

/**
 * Data access for approvals: at most one `waiting` per project (a unique index on both databases); every
 * change of state is conditional on the state it leaves, so of an approval and a supersession racing,
 * exactly one wins.
 */
export function createApprovalRepository(db: Kysely<Database>) {
  return {
    /**
     * Records that a recommendation waits for approval; false when the project already has one waiting, or
     * this one was asked for before (a retried job).
     */
    async ask(input: {
      recommendationId: string;
      projectId: string;
      learningRun: number | null;
      at: number;
    }): Promise<boolean> {
      const result = await db
        .insertInto('apply_approvals')
        .values({
          recommendation_id: input.recommendationId,
          project_id: input.projectId,
          state: 'waiting',
          learning_run: input.learningRun,
          waiting_since: input.at,
          decided_at: null,
          decided_by: null,
          reason: null,
        })
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async find(recommendationId: string): Promise<Approval | undefined> {
      const row = await db
        .selectFrom('apply_approvals')
        .selectAll()
        .where('recommendation_id', '=', recommendationId)
        .executeTakeFirst();
      return row ? toApproval(row) : undefined;
    },

    /** Moves an approval from one of `from` to `to`; false when it was in none of them (someone else decided). */
    async decide(
      recommendationId: string,
      from: readonly ApprovalState[],
      to: ApprovalState,
      outcome: ApprovalOutcome,
    ): Promise<boolean> {
      const result = await db
        .updateTable('apply_approvals')
        .set({ state: to, decided_at: outcome.at, decided_by: outcome.by, reason: outcome.reason })
        .where('recommendation_id', '=', recommendationId)
        .where('state', 'in', [...from])
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The project's approval waiting now, if any. */
    async waiting(projectId: string): Promise<Approval | undefined> {
      const row = await db
        .selectFrom('apply_approvals')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('state', '=', sql.lit('waiting'))
        .executeTakeFirst();
      return row ? toApproval(row) : undefined;
    },

    /** The approvals waiting now among `projectIds`, by project. */
    async waitingOf(projectIds: readonly string[]): Promise<Map<string, Approval>> {
      if (projectIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('apply_approvals')
        .selectAll()
        .where('project_id', 'in', [...projectIds])
        .where('state', '=', sql.lit('waiting'))
        .execute();
      return new Map(rows.map((row) => [row.project_id, toApproval(row)]));
    },

    /** Approvals in a state, newest first (one project's, or every project's). */
    async list(query: { state: ApprovalState; projectId?: string | undefined; limit: number }) {
      let select = db.selectFrom('apply_approvals').selectAll().where('state', '=', query.state);
      if (query.projectId !== undefined) select = select.where('project_id', '=', query.projectId);
      const rows = await select.orderBy('waiting_since', 'desc').limit(query.limit).execute();
      return rows.map(toApproval);
    },
  };
}

export type ApprovalRepository = ReturnType<typeof createApprovalRepository>;
