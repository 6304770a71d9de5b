import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { Kysely, Selectable } from 'kysely';
import type { JobQueue } from '../queue/job-queue.js';
import type { Database, RecommendationsTable } from '../store/database-schema.js';
import { recordAudit } from './audit-log.js';
import { newId, parseJsonColumn } from './ids.js';
import type { DomainEventPublisher, NewClusterFragment, Prediction } from './ports.js';
import type { ProjectPhase } from './project-settings.js';

export type RecommendationState = 'PENDING' | 'SUCCESS' | 'FAILURE';

export interface Recommendation {
  id: string;
  projectId: string;
  state: RecommendationState;
  phase: ProjectPhase | null;
  configuration: NewClusterFragment | null;
  prediction: Prediction | null;
  explanation: string | null;
  basedOnRunId: string | null;
  error: string | null;
  requestedBy: string;
  applyRequestedAt: number | null;
  applyRequestedBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export function toRecommendation(row: Selectable<RecommendationsTable>): Recommendation {
  return {
    id: row.id,
    projectId: row.project_id,
    state: row.state as RecommendationState,
    phase: row.phase as ProjectPhase | null,
    configuration: parseJsonColumn<NewClusterFragment>(row.configuration),
    prediction: parseJsonColumn<Prediction>(row.prediction),
    explanation: row.explanation,
    basedOnRunId: row.based_on_run_id,
    error: row.error,
    requestedBy: row.requested_by,
    applyRequestedAt: row.apply_requested_at,
    applyRequestedBy: row.apply_requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createRecommendationService({
  db,
  queue,
  events,
}: {
  db: Kysely<Database>;
  queue: Pick<JobQueue, 'enqueue'>;
  events: DomainEventPublisher;
}) {
  async function assertProject(projectId: string) {
    const found = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
    if (!found) throw new NotFoundError('PROJECT_NOT_FOUND', `project ${projectId} does not exist`);
  }

  async function get(projectId: string, id: string): Promise<Recommendation> {
    const row = await db
      .selectFrom('recommendations')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row)
      throw new NotFoundError(
        'RECOMMENDATION_NOT_FOUND',
        `recommendation ${id} does not exist in project ${projectId}`,
      );
    return toRecommendation(row);
  }

  /**
   * Creates a PENDING recommendation and queues its generation. With an idempotency key (the
   * pipeline passes `run:<id>`), a second call returns the first recommendation instead.
   */
  async function request(
    projectId: string,
    options: { actor: string; basedOnRunId?: string | undefined; idempotencyKey?: string | undefined },
  ): Promise<Recommendation> {
    await assertProject(projectId);
    let basedOnRunId = options.basedOnRunId;
    if (!basedOnRunId) {
      const latest = await db
        .selectFrom('runs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('pipeline_state', 'in', ['MODELING', 'DONE'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!latest) {
        throw new ConflictError(
          'PROJECT_HAS_NO_PROCESSED_RUNS',
          `project ${projectId} has no processed run to base a recommendation on`,
        );
      }
      basedOnRunId = latest.id;
    }
    const now = Date.now();
    const id = newId('rec');
    await db
      .insertInto('recommendations')
      .values({
        id,
        project_id: projectId,
        idempotency_key: options.idempotencyKey ?? null,
        state: 'PENDING',
        phase: null,
        configuration: null,
        prediction: null,
        explanation: null,
        based_on_run_id: basedOnRunId,
        error: null,
        requested_by: options.actor,
        apply_requested_at: null,
        apply_requested_by: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
      .execute();
    const row = options.idempotencyKey
      ? await db
          .selectFrom('recommendations')
          .selectAll()
          .where('idempotency_key', '=', options.idempotencyKey)
          .executeTakeFirstOrThrow()
      : await db.selectFrom('recommendations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (row.state === 'PENDING') {
      await queue.enqueue(
        'recommendation.generate',
        { recommendationId: row.id },
        { idempotencyKey: `recommendation.generate:${row.id}` },
      );
    }
    return toRecommendation(row);
  }

  return {
    request,
    get,

    async list(
      projectId: string,
      page: { limit: number; offset: number; state?: RecommendationState | undefined },
    ) {
      await assertProject(projectId);
      let base = db.selectFrom('recommendations').where('project_id', '=', projectId);
      if (page.state) base = base.where('state', '=', page.state);
      const [rows, count] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toRecommendation), total: Number(count.count) };
    },

    /** The newest successful recommendation. */
    async latest(projectId: string): Promise<Recommendation> {
      await assertProject(projectId);
      const row = await db
        .selectFrom('recommendations')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('state', '=', 'SUCCESS')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!row)
        throw new NotFoundError(
          'RECOMMENDATION_NOT_FOUND',
          `project ${projectId} has no successful recommendation yet`,
        );
      return toRecommendation(row);
    },

    /** Records the intent to apply and emits an event; the platform integration performs it. */
    async apply(projectId: string, id: string, actor: string): Promise<Recommendation> {
      const current = await get(projectId, id);
      if (current.state !== 'SUCCESS') {
        throw new ConflictError(
          'RECOMMENDATION_NOT_READY',
          `recommendation ${id} is ${current.state}; only SUCCESS can be applied`,
        );
      }
      if (current.applyRequestedAt !== null) return current;
      const now = Date.now();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('recommendations')
          .set({ apply_requested_at: now, apply_requested_by: actor, updated_at: now })
          .where('id', '=', id)
          .where('apply_requested_at', 'is', null)
          .execute();
        await recordAudit(
          trx,
          { entity: 'recommendation', entityId: id, action: 'apply_requested', actor, detail: { projectId } },
          now,
        );
      });
      events.publish({
        type: 'recommendation.apply_requested',
        projectId,
        recommendationId: id,
        actor,
        at: now,
      });
      return get(projectId, id);
    },
  };
}

export type RecommendationService = ReturnType<typeof createRecommendationService>;
