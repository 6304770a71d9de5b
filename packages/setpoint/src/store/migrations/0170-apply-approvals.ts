import { type Kysely, sql } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

interface SettingsRow {
  id: string;
  settings: string;
}

/** The apply mode a document of settings stored before it existed had: auto-apply on is `auto`, off `manual`. */
function withMode(text: string, modeKey: string, switchKey: string): string | null {
  const settings = JSON.parse(text) as Record<string, unknown>;
  if (settings[modeKey] !== undefined) return null;
  return JSON.stringify({ ...settings, [modeKey]: settings[switchKey] === true ? 'auto' : 'manual' });
}

async function addMode(db: Kysely<unknown>, table: string, modeKey: string, switchKey: string) {
  const { rows } = await sql<SettingsRow>`select id, settings from ${sql.table(table)}`.execute(db);
  for (const row of rows) {
    const settings = withMode(row.settings, modeKey, switchKey);
    if (settings !== null)
      await sql`update ${sql.table(table)} set settings = ${settings} where id = ${row.id}`.execute(db);
  }
}

/**
 * Approval mode. Every project's settings (and the organization's defaults) gain the apply mode their
 * auto-apply switch meant: on is `auto`, off `manual`. `apply_approvals` holds each learning run that waits
 * for a person before Setpoint writes it (apply mode `approve-learning`) and what became of it; at most one
 * per project is `waiting` (a unique index on both databases).
 */
export function migration0170(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addMode(db, 'projects', 'applyMode', 'autoApply');
      await addMode(db, 'organization_settings', 'default_apply_mode', 'default_auto_apply');
      await db.schema
        .createTable('apply_approvals')
        .addColumn('recommendation_id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('learning_run', 'integer')
        .addColumn('waiting_since', types.bigint, (c) => c.notNull())
        .addColumn('decided_at', types.bigint)
        .addColumn('decided_by', 'text')
        .addColumn('reason', 'text')
        .execute();
      await db.schema
        .createIndex('apply_approvals_one_waiting')
        .on('apply_approvals')
        .column('project_id')
        .unique()
        .where(sql.ref('state'), '=', 'waiting')
        .execute();
      await db.schema
        .createIndex('apply_approvals_project')
        .on('apply_approvals')
        .columns(['project_id', 'waiting_since'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('apply_approvals').execute();
    },
  };
}
