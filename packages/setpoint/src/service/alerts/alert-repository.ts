import type { Kysely, Selectable } from 'kysely';
import type {
  AlertDestinationsTable,
  AlertRulesTable,
  Database,
  NotificationsTable,
} from '../../store/database-schema.js';

export type AlertDestinationRow = Selectable<AlertDestinationsTable>;
export type AlertRuleRow = Selectable<AlertRulesTable>;
export type NotificationRow = Selectable<NotificationsTable>;

/** Data access for alert destinations, rules and the notifications sent (migration 0030). */
export function createAlertRepository(db: Kysely<Database>) {
  return {
    async insertDestination(row: AlertDestinationRow): Promise<void> {
      await db.insertInto('alert_destinations').values(row).execute();
    },
    listDestinations(): Promise<AlertDestinationRow[]> {
      return db.selectFrom('alert_destinations').selectAll().orderBy('created_at').orderBy('id').execute();
    },
    findDestination(id: string): Promise<AlertDestinationRow | undefined> {
      return db.selectFrom('alert_destinations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async updateDestination(
      id: string,
      row: Pick<
        AlertDestinationRow,
        'name' | 'max_per_hour' | 'settings' | 'secret' | 'updated_at' | 'updated_by'
      >,
    ): Promise<void> {
      const { name, max_per_hour, settings, secret, updated_at, updated_by } = row;
      await db
        .updateTable('alert_destinations')
        .set({ name, max_per_hour, settings, secret, updated_at, updated_by })
        .where('id', '=', id)
        .execute();
    },
    /** The same secret under another key (re-encryption after a key rotation); nothing else changes. */
    async rewriteSecret(id: string, envelope: string): Promise<void> {
      await db.updateTable('alert_destinations').set({ secret: envelope }).where('id', '=', id).execute();
    },
    /** Deletes the destination and its rules; false when it did not exist. */
    async deleteDestination(id: string): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        await tx.deleteFrom('alert_rules').where('destination_id', '=', id).execute();
        const deleted = await tx.deleteFrom('alert_destinations').where('id', '=', id).executeTakeFirst();
        return Number(deleted.numDeletedRows) === 1;
      });
    },
    async insertRule(row: AlertRuleRow): Promise<void> {
      await db.insertInto('alert_rules').values(row).execute();
    },
    listRules(projectId?: string): Promise<AlertRuleRow[]> {
      let query = db.selectFrom('alert_rules').selectAll();
      if (projectId !== undefined)
        query = query.where((eb) => eb.or([eb('project_id', '=', projectId), eb('project_id', 'is', null)]));
      return query.orderBy('created_at').orderBy('id').execute();
    },
    findRule(id: string): Promise<AlertRuleRow | undefined> {
      return db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async updateRule(
      id: string,
      patch: Partial<Pick<AlertRuleRow, 'enabled' | 'destination_id' | 'params' | 'evaluated_until'>>,
    ): Promise<void> {
      await db.updateTable('alert_rules').set(patch).where('id', '=', id).execute();
    },
    async markEvaluated(id: string, until: number): Promise<void> {
      await db.updateTable('alert_rules').set({ evaluated_until: until }).where('id', '=', id).execute();
    },
    async deleteRule(id: string): Promise<boolean> {
      const deleted = await db.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },
    /** Inserts the notification unless its de-duplication key exists; true when this call inserted it. */
    async insertNotificationOnce(row: NotificationRow): Promise<boolean> {
      const inserted = await db
        .insertInto('notifications')
        .values(row)
        .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async settleNotification(
      id: string,
      status: string,
      error: string | null,
      retry: { attempts: number; nextAttemptAt: number | null } | null = null,
    ): Promise<void> {
      await db
        .updateTable('notifications')
        .set({
          status,
          error,
          ...(retry
            ? { attempts: retry.attempts, next_attempt_at: retry.nextAttemptAt }
            : { next_attempt_at: null }),
        })
        .where('id', '=', id)
        .execute();
    },
    findNotification(id: string): Promise<NotificationRow | undefined> {
      return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Notifications whose next delivery attempt is due. */
    retriesDue(now: number): Promise<NotificationRow[]> {
      return db
        .selectFrom('notifications')
        .selectAll()
        .where('status', '=', 'RETRYING')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(100)
        .execute();
    },
    /** Notifications actually sent to a destination since `since` (what its hourly limit counts). */
    async sentSince(destinationId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('destination_id', '=', destinationId)
        .where('status', '=', 'SENT')
        .where('created_at', '>=', since)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    async pageNotifications(page: { limit: number; offset: number; projectId?: string }) {
      let base = db.selectFrom('notifications');
      if (page.projectId !== undefined) base = base.where('project_id', '=', page.projectId);
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
      return { rows, total: Number(count.count) };
    },
    /** Runs that finished processing since `since` (their last change), with what run-based rules read. */
    recentRuns(since: number, projectId: string | null) {
      let query = db
        .selectFrom('runs')
        .innerJoin('projects', 'projects.id', 'runs.project_id')
        .select([
          'runs.id',
          'runs.project_id',
          'runs.status',
          'runs.started_at',
          'runs.ended_at',
          'runs.cost',
          'runs.created_at',
          'projects.name as project_name',
          'projects.settings as project_settings',
        ])
        .where('runs.pipeline_state', '=', 'DONE')
        .where('runs.updated_at', '>=', since);
      if (projectId !== null) query = query.where('runs.project_id', '=', projectId);
      return query.orderBy('runs.created_at').orderBy('runs.id').execute();
    },
    /** The project's processed runs created before `before`, newest first. */
    earlierRuns(projectId: string, before: number, limit: number) {
      return db
        .selectFrom('runs')
        .select(['id', 'project_id', 'status', 'started_at', 'ended_at', 'cost'])
        .where('project_id', '=', projectId)
        .where('pipeline_state', '=', 'DONE')
        .where('created_at', '<', before)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
    /** Audit entries about projects with this action since `since` (phase changes, outside edits). */
    projectChanges(action: string, since: number, projectId: string | null) {
      let query = db
        .selectFrom('audit_log')
        .innerJoin('projects', 'projects.id', 'audit_log.entity_id')
        .select([
          'audit_log.id',
          'audit_log.entity_id',
          'audit_log.detail',
          'audit_log.created_at',
          'projects.name',
        ])
        .where('audit_log.entity', '=', 'project')
        .where('audit_log.action', '=', action)
        .where('audit_log.created_at', '>=', since);
      if (projectId !== null) query = query.where('audit_log.entity_id', '=', projectId);
      return query.orderBy('audit_log.id').execute();
    },
    parkedSince(since: number) {
      return db.selectFrom('parked_jobs').selectAll().where('created_at', '>=', since).execute();
    },
  };
}

export type AlertRepository = ReturnType<typeof createAlertRepository>;
