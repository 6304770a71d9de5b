import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

export function migration0001(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text')
        .addColumn('created_at', types.bigint, (column) => column.notNull())
        .addColumn('updated_at', types.bigint, (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', types.serialPrimaryKey, (column) =>
          dialect === 'sqlite' ? column.primaryKey().autoIncrement() : column.primaryKey(),
        )
        .addColumn('entity', 'text', (column) => column.notNull())
        .addColumn('entity_id', 'text', (column) => column.notNull())
        .addColumn('action', 'text', (column) => column.notNull())
        .addColumn('actor', 'text', (column) => column.notNull())
        .addColumn('detail', 'text', (column) => column.notNull())
        .addColumn('created_at', types.bigint, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('audit_log_entity')
        .on('audit_log')
        .columns(['entity', 'entity_id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('audit_log').execute();
      await db.schema.dropTable('projects').execute();
    },
  };
}
