import {
  applyModeOf,
  defaultProjectSettings,
  type ProjectPhase,
  type ProjectSettings,
} from '@setpoint/api-contract';
import { NotFoundError } from '@setpoint/foundation/errors';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, ProjectsTable } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';
import type { Project, ProjectListQuery } from './project-records.js';

const defaultSettings = defaultProjectSettings();

/** Stored settings with the defaults added since; a document older than the apply mode says it by its switch. */
function settingsOf(stored: Partial<ProjectSettings>): ProjectSettings {
  return { ...defaultSettings, ...stored, applyMode: applyModeOf(stored) };
}

function toProject(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workspaceId: row.workspace_id,
    jobId: row.job_id,
    clusterKey: row.cluster_key,
    appId: row.app_id,
    // Validated on every write; reads only fill in defaults added since (the list endpoint is hot).
    settings: settingsOf(JSON.parse(row.settings) as Partial<ProjectSettings>),
    phase: row.phase as ProjectPhase,
    learningResetAt: row.learning_reset_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ProjectChanges = Partial<
  Pick<Project, 'name' | 'description' | 'workspaceId' | 'jobId' | 'clusterKey' | 'appId'>
> & { settings: ProjectSettings };

/** Data access for projects; every change is written with its audit entry in one transaction. */
export function createProjectRepository(db: Kysely<Database>) {
  async function find(id: string): Promise<Project | undefined> {
    const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toProject(row) : undefined;
  }

  return {
    find,

    /** The one existence check every resource under a project starts with. */
    async assertExists(id: string): Promise<void> {
      const found = await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst();
      if (!found) throw new NotFoundError('PROJECT_NOT_FOUND', `project ${id} does not exist`);
    },

    async insert(project: Project, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('projects')
          .values({
            id: project.id,
            name: project.name,
            description: project.description,
            workspace_id: project.workspaceId,
            job_id: project.jobId,
            cluster_key: project.clusterKey,
            app_id: project.appId,
            settings: JSON.stringify(project.settings),
            phase: project.phase,
            created_at: project.createdAt,
            updated_at: project.updatedAt,
          })
          .execute();
        await recordAudit(trx, audit, project.createdAt);
      });
    },

    async list(query: ProjectListQuery): Promise<{ items: Project[]; total: number }> {
      let base = db.selectFrom('projects');
      if (query.search) {
        // Case-insensitive on both dialects; %, _ and \ in the search are literal.
        const pattern = `%${query.search.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
        base = base.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
      }
      if (query.workspaceId) base = base.where('workspace_id', '=', query.workspaceId);
      if (query.appId) base = base.where('app_id', '=', query.appId);
      if (query.phase) base = base.where('phase', '=', query.phase);
      const direction = query.sort.startsWith('-') ? 'desc' : 'asc';
      const column = query.sort.replace(/^-/, '') as 'name' | 'created_at' | 'updated_at';
      const [rows, count] = await Promise.all([
        base
          .selectAll()
          .orderBy(column, direction)
          .orderBy('id', direction)
          .limit(query.limit)
          .offset(query.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toProject), total: Number(count.count) };
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async update(id: string, changes: ProjectChanges, now: number, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('projects')
          .set({
            ...(changes.name !== undefined && { name: changes.name }),
            ...(changes.description !== undefined && { description: changes.description }),
            ...(changes.workspaceId !== undefined && { workspace_id: changes.workspaceId }),
            ...(changes.jobId !== undefined && { job_id: changes.jobId }),
            ...(changes.clusterKey !== undefined && { cluster_key: changes.clusterKey }),
            ...(changes.appId !== undefined && { app_id: changes.appId }),
            settings: JSON.stringify(changes.settings),
            updated_at: now,
          })
          .where('id', '=', id)
          .execute();
        await recordAudit(trx, audit, now);
      });
    },

    /** Moves the learning start to `now` and fails the project's pending recommendations; returns how many. */
    async reset(
      id: string,
      phase: ProjectPhase,
      now: number,
      audit: (supersededRecommendations: number) => AuditEntry,
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('projects')
          .set({ phase, learning_reset_at: now, updated_at: now })
          .where('id', '=', id)
          .execute();
        const superseded = await trx
          .updateTable('recommendations')
          .set({ state: 'FAILURE', error: 'superseded: the project was reset', updated_at: now })
          .where('project_id', '=', id)
          .where('state', '=', 'PENDING')
          .executeTakeFirst();
        await recordAudit(trx, audit(Number(superseded.numUpdatedRows)), now);
      });
    },

    /** Deletes the project with its runs, recommendations and learning summary; returns the runs' event-log bundles. */
    async remove(id: string, audit: AuditEntry): Promise<string[]> {
      return db.transaction().execute(async (trx) => {
        const bundles = await trx
          .selectFrom('runs')
          .select('eventlog_blob_key')
          .where('project_id', '=', id)
          .where('eventlog_blob_key', 'is not', null)
          .execute();
        await trx.deleteFrom('runs').where('project_id', '=', id).execute();
        await trx.deleteFrom('recommendations').where('project_id', '=', id).execute();
        await trx.deleteFrom('apply_approvals').where('project_id', '=', id).execute();
        await trx.deleteFrom('project_learning_summaries').where('project_id', '=', id).execute();
        await trx.deleteFrom('projects').where('id', '=', id).execute();
        await recordAudit(trx, audit);
        return bundles.flatMap((row) => (row.eventlog_blob_key ? [row.eventlog_blob_key] : []));
      });
    },
  };
}

export type ProjectRepository = ReturnType<typeof createProjectRepository>;
