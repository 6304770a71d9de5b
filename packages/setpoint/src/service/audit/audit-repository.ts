import type { Kysely } from 'kysely';
import type { Database } from '../../store/database-schema.js';

export interface AuditEntry {
  entity: 'project' | 'workspace' | 'api_key' | 'recommendation' | 'run' | 'organization';
  entityId: string;
  action: string;
  actor: string;
  /** What changed; never secret values (callers pass field names for secrets). */
  detail: Record<string, unknown>;
}

/** Written by other repositories inside the transaction of the change it records. */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry, now = Date.now()): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      entity: entry.entity,
      entity_id: entry.entityId,
      action: entry.action,
      actor: entry.actor,
      detail: JSON.stringify(entry.detail),
      created_at: now,
    })
    .execute();
}

export interface AuditRecord {
  action: string;
  actor: string;
  detail: Record<string, unknown>;
  createdAt: number;
}

export function createAuditRepository(db: Kysely<Database>) {
  return {
    /** Entries of one entity, oldest first. */
    async list(entity: AuditEntry['entity'], entityId: string): Promise<AuditRecord[]> {
      const rows = await db
        .selectFrom('audit_log')
        .selectAll()
        .where('entity', '=', entity)
        .where('entity_id', '=', entityId)
        .orderBy('id', 'asc')
        .execute();
      return rows.map((row) => ({
        action: row.action,
        actor: row.actor,
        detail: JSON.parse(row.detail) as Record<string, unknown>,
        createdAt: row.created_at,
      }));
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
