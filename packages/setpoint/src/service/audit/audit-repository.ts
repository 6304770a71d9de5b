import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../store/database-schema.js';

export const auditEntities = [
  'project',
  'workspace',
  'api_key',
  'recommendation',
  'run',
  'organization',
  'user',
  'alert_destination',
  'alert_rule',
] as const;
export type AuditEntity = (typeof auditEntities)[number];

export interface AuditEntry {
  entity: AuditEntity;
  entityId: string;
  action: string;
  actor: string;
  /** What changed; never secret values (callers pass field names for secrets). */
  detail: Record<string, unknown>;
}

/** The project an entry concerns: the project itself, or the one its detail names. */
function projectOf(entry: AuditEntry): string | null {
  if (entry.entity === 'project') return entry.entityId;
  const named = entry.detail.projectId;
  return typeof named === 'string' ? named : null;
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
      project_id: projectOf(entry),
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

/** One entry of the organization's trail, with the name of the project it concerns when it still exists. */
export interface AuditTrailRecord extends AuditRecord {
  id: number;
  entity: string;
  entityId: string;
  projectId: string | null;
  projectName: string | null;
}

/** Every filter is optional; `actor` matches `user:ana` as well as `ana`; times are epoch ms, `until` exclusive. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  entity?: string;
  projectId?: string;
  since?: number;
  until?: number;
  /** Only entries written up to this id: an export reads what existed when it started. */
  throughId?: number;
  /** Only entries older than this one in the trail's order (newest first): an export's cursor. */
  olderThan?: { createdAt: number; id: number };
}

type TrailQuery = SelectQueryBuilder<Database, 'audit_log', object>;

function filtered(query: TrailQuery, filter: AuditFilter): TrailQuery {
  let q = query;
  const { actor, action, entity, projectId, since, until, throughId, olderThan } = filter;
  if (actor !== undefined) q = q.where('audit_log.actor', 'in', [actor, `user:${actor}`, `api-key:${actor}`]);
  if (action !== undefined) q = q.where('audit_log.action', '=', action);
  if (entity !== undefined) q = q.where('audit_log.entity', '=', entity);
  if (projectId !== undefined) q = q.where('audit_log.project_id', '=', projectId);
  if (since !== undefined) q = q.where('audit_log.created_at', '>=', since);
  if (until !== undefined) q = q.where('audit_log.created_at', '<', until);
  if (throughId !== undefined) q = q.where('audit_log.id', '<=', throughId);
  if (olderThan !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb('audit_log.created_at', '<', olderThan.createdAt),
        eb.and([eb('audit_log.created_at', '=', olderThan.createdAt), eb('audit_log.id', '<', olderThan.id)]),
      ]),
    );
  return q;
}

export function createAuditRepository(db: Kysely<Database>) {
  return {
    /** An entry of its own (no other change in the same transaction), e.g. what a platform observed. */
    record: (entry: AuditEntry, now = Date.now()) => recordAudit(db, entry, now),

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

    /** How many entries match the filter. */
    async count(filter: AuditFilter): Promise<number> {
      const row = await filtered(db.selectFrom('audit_log'), filter)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** A slice of the matching entries, newest first. */
    async page(filter: AuditFilter, limit: number, offset: number): Promise<AuditTrailRecord[]> {
      const rows = await filtered(db.selectFrom('audit_log'), filter)
        .leftJoin('projects', 'projects.id', 'audit_log.project_id')
        .select([
          'audit_log.id',
          'audit_log.entity',
          'audit_log.entity_id',
          'audit_log.action',
          'audit_log.actor',
          'audit_log.detail',
          'audit_log.project_id',
          'audit_log.created_at',
          'projects.name as project_name',
        ])
        .orderBy('audit_log.created_at', 'desc')
        .orderBy('audit_log.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        entity: row.entity,
        entityId: row.entity_id,
        action: row.action,
        actor: row.actor,
        detail: JSON.parse(row.detail) as Record<string, unknown>,
        projectId: row.project_id,
        projectName: row.project_name,
        createdAt: Number(row.created_at),
      }));
    },

    /** The newest entry's id (0 when the trail is empty). */
    async lastId(): Promise<number> {
      const row = await db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** The actors, actions and entities the trail holds, for the filters' choices. */
    async facets(): Promise<{ actors: string[]; actions: string[]; entities: string[] }> {
      const distinct = async (column: 'actor' | 'action' | 'entity') =>
        (
          await db.selectFrom('audit_log').select(column).distinct().orderBy(column).limit(1000).execute()
        ).map((row) => row[column]);
      const [actors, actions, entities] = await Promise.all([
        distinct('actor'),
        distinct('action'),
        distinct('entity'),
      ]);
      return { actors, actions, entities };
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
