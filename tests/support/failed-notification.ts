import type { Kysely } from 'kysely';
import type { Database } from 'setpoint/store/database-schema';

/**
 * A notification of `ruleId` to `destinationId` stored as failed, so an admin's retry
 * (`POST /api/v1/notifications/:id/retry`) delivers it at once; returns its id.
 */
export async function storeFailedNotification(
  db: Kysely<Database>,
  ruleId: string,
  destinationId: string,
): Promise<string> {
  const id = `ntf_${destinationId}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  await db
    .insertInto('notifications')
    .values({
      id,
      rule_id: ruleId,
      destination_id: destinationId,
      project_id: null,
      event: 'sla_missed',
      dedupe_key: id,
      title: 'a run missed its SLA',
      detail: '{}',
      status: 'FAILED',
      error: 'first attempt',
      created_at: Date.now(),
    })
    .execute();
  return id;
}
