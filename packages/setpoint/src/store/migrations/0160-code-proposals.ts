import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * Where a project's configuration lives in code (`project_sources`: the repository, file and forge a
 * user linked, with the forge token encrypted) and the changes Setpoint proposed there
 * (`code_proposals`: the branch, the pull or merge request, and the configuration it carries, so a
 * merged and deployed proposal is recognised when the platform runs that configuration).
 */
export function migration0160(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('project_sources')
        .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('repository', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('branch', 'text')
        .addColumn('address', 'text')
        .addColumn('target', 'text')
        .addColumn('tfvars', 'text')
        .addColumn('forge', 'text', (c) => c.notNull())
        .addColumn('forge_api_url', 'text')
        .addColumn('token_ciphertext', 'text')
        .addColumn('api_writes', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('code_proposals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('recommendation_id', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('repository', 'text', (c) => c.notNull())
        .addColumn('branch', 'text', (c) => c.notNull())
        .addColumn('base_branch', 'text', (c) => c.notNull())
        .addColumn('commit_sha', 'text', (c) => c.notNull())
        .addColumn('forge', 'text', (c) => c.notNull())
        .addColumn('number', 'integer')
        .addColumn('url', 'text')
        .addColumn('configuration', types.json, (c) => c.notNull())
        .addColumn('files', types.json, (c) => c.notNull())
        .addColumn('diff', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .addColumn('merged_at', types.bigint)
        .addColumn('applied_at', types.bigint)
        .execute();
      await db.schema
        .createIndex('code_proposals_by_project')
        .on('code_proposals')
        .columns(['project_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('code_proposals').execute();
      await db.schema.dropTable('project_sources').execute();
    },
  };
}
