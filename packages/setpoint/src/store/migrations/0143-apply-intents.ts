import { type Kysely, sql } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * Every write into a project's cluster, recorded as intended before it is written (write-ahead): what it
 * will write, by whom and why, its outcome once known. At most one intent per project is `pending` (a
 * unique index on both databases): the one apply at a time per project, across processes. A pending
 * intent whose lease ran out was left by a process that died; the next one to take the project's lock
 * finds out from the platform whether the write landed and records it as Setpoint's own.
 */
export function migration0143(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('apply_intents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('recommendation_id', 'text')
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('configuration', types.json)
        .addColumn('undoes', 'text')
        .addColumn('reason', 'text')
        .addColumn('outcome', 'text')
        .addColumn('change_id', 'text')
        .addColumn('lease_until', types.bigint, (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('apply_intents_one_pending')
        .on('apply_intents')
        .column('project_id')
        .unique()
        .where(sql.ref('state'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('apply_intents_project')
        .on('apply_intents')
        .columns(['project_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('apply_intents').execute();
    },
  };
}
