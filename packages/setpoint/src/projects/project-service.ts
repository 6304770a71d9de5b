import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, ProjectsTable } from '../store/database-schema.js';
import { listAudit, recordAudit } from './audit-log.js';
import { newId } from './ids.js';
import {
  defaultProjectSettings,
  type ProjectPhase,
  type ProjectSettings,
  projectSettingsSchema,
} from './project-settings.js';

export interface Project {
  id: string;
  name: string;
  description: string | null;
  workspaceId: string | null;
  jobId: string | null;
  clusterKey: string | null;
  appId: string | null;
  settings: ProjectSettings;
  phase: ProjectPhase;
  /** When `reset` last ran: earlier runs are history only and no longer teach the optimizer. */
  learningResetAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ProjectInput {
  name: string;
  description?: string | null | undefined;
  workspaceId?: string | null | undefined;
  jobId?: string | null | undefined;
  clusterKey?: string | null | undefined;
  appId?: string | null | undefined;
  settings?: Partial<ProjectSettings> | undefined;
}

export interface ProjectListQuery {
  search?: string | undefined;
  workspaceId?: string | undefined;
  /** The caller's own key for the job (an Airflow DAG/task, a Gradient app id). */
  appId?: string | undefined;
  phase?: ProjectPhase | undefined;
  sort: 'name' | '-name' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at';
  limit: number;
  offset: number;
}

const defaultSettings = defaultProjectSettings();

export function toProject(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workspaceId: row.workspace_id,
    jobId: row.job_id,
    clusterKey: row.cluster_key,
    appId: row.app_id,
    // Validated on every write; reads only fill in defaults added since (the list endpoint is hot).
    settings: { ...defaultSettings, ...(JSON.parse(row.settings) as Partial<ProjectSettings>) },
    phase: row.phase as ProjectPhase,
    learningResetAt: row.learning_reset_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseSettings(settings: unknown): ProjectSettings {
  const parsed = projectSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'PROJECT_SETTINGS_INVALID',
      `invalid project settings: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}

export function createProjectService({ db }: { db: Kysely<Database> }) {
  async function assertWorkspace(workspaceId: string | null | undefined) {
    if (!workspaceId) return;
    const found = await db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (!found) throw new NotFoundError('WORKSPACE_NOT_FOUND', `workspace ${workspaceId} does not exist`);
  }

  async function get(id: string): Promise<Project> {
    const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFoundError('PROJECT_NOT_FOUND', `project ${id} does not exist`);
    return toProject(row);
  }

  return {
    get,

    async create(input: ProjectInput, actor: string): Promise<Project> {
      await assertWorkspace(input.workspaceId);
      const settings = parseSettings(input.settings ?? {});
      const now = Date.now();
      const id = newId('prj');
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('projects')
          .values({
            id,
            name: input.name,
            description: input.description ?? null,
            workspace_id: input.workspaceId ?? null,
            job_id: input.jobId ?? null,
            cluster_key: input.clusterKey ?? null,
            app_id: input.appId ?? null,
            settings: JSON.stringify(settings),
            phase: 'PENDING_SETUP',
            created_at: now,
            updated_at: now,
          })
          .execute();
        await recordAudit(
          trx,
          { entity: 'project', entityId: id, action: 'create', actor, detail: { ...input, settings } },
          now,
        );
      });
      return get(id);
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

    async update(
      id: string,
      patch: Partial<Omit<ProjectInput, 'settings'>> & { settings?: Partial<ProjectSettings> | undefined },
      actor: string,
    ): Promise<Project> {
      const current = await get(id);
      if (patch.workspaceId !== undefined) await assertWorkspace(patch.workspaceId);
      const settings = patch.settings
        ? parseSettings({ ...current.settings, ...patch.settings })
        : current.settings;
      const now = Date.now();
      const changes = {
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.workspaceId !== undefined && { workspace_id: patch.workspaceId }),
        ...(patch.jobId !== undefined && { job_id: patch.jobId }),
        ...(patch.clusterKey !== undefined && { cluster_key: patch.clusterKey }),
        ...(patch.appId !== undefined && { app_id: patch.appId }),
        settings: JSON.stringify(settings),
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('projects').set(changes).where('id', '=', id).execute();
        await recordAudit(
          trx,
          { entity: 'project', entityId: id, action: 'update', actor, detail: { ...patch } },
          now,
        );
      });
      return get(id);
    },

    async setPhase(id: string, phase: ProjectPhase, actor: string, reason: string): Promise<void> {
      const current = await get(id);
      if (current.phase === phase) return;
      const now = Date.now();
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('projects').set({ phase, updated_at: now }).where('id', '=', id).execute();
        await recordAudit(
          trx,
          {
            entity: 'project',
            entityId: id,
            action: 'phase',
            actor,
            detail: { from: current.phase, to: phase, reason },
          },
          now,
        );
      });
    },

    /**
     * Forgets what Setpoint learned: back to LEARNING (PENDING_SETUP stays), runs kept as history but
     * only later runs feed the optimizer, pending recommendations fail as superseded.
     */
    async reset(id: string, actor: string): Promise<Project> {
      const current = await get(id);
      const phase: ProjectPhase = current.phase === 'PENDING_SETUP' ? 'PENDING_SETUP' : 'LEARNING';
      const now = Date.now();
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
        await recordAudit(
          trx,
          {
            entity: 'project',
            entityId: id,
            action: 'reset',
            actor,
            detail: {
              from: current.phase,
              to: phase,
              supersededRecommendations: Number(superseded.numUpdatedRows),
            },
          },
          now,
        );
      });
      return get(id);
    },

    async remove(id: string, actor: string): Promise<void> {
      await get(id);
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('runs').where('project_id', '=', id).execute();
        await trx.deleteFrom('recommendations').where('project_id', '=', id).execute();
        await trx.deleteFrom('projects').where('id', '=', id).execute();
        await recordAudit(trx, { entity: 'project', entityId: id, action: 'delete', actor, detail: {} });
      });
    },

    audit: (id: string) => listAudit(db, 'project', id),
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
