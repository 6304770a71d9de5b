import { type Kysely, sql } from 'kysely';

/**
 * The organization's audit trail is read across entities: each entry names the project it concerns
 * (null for keys, users, workspaces…), and time and project are indexed for the filters.
 */
export function migration0070() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('audit_log').addColumn('project_id', 'text').execute();
      await sql`update audit_log set project_id = entity_id where entity = 'project'`.execute(db);
      await sql`update audit_log set project_id = (select project_id from recommendations where recommendations.id = audit_log.entity_id) where entity = 'recommendation'`.execute(
        db,
      );
      await db.schema
        .createIndex('audit_log_created_at')
        .on('audit_log')
        .columns(['created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('audit_log_project_created_at')
        .on('audit_log')
        .columns(['project_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('audit_log_project_created_at').execute();
      await db.schema.dropIndex('audit_log_created_at').execute();
      await db.schema.alterTable('audit_log').dropColumn('project_id').execute();
    },
  };
}
