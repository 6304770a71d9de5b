import type { Kysely } from 'kysely';

/**
 * The projects list asks, per page, how many runs each project has and when one last changed, to know
 * whether a remembered summary still holds; this index answers that without reading the runs.
 */
export function migration0007() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('runs_project_updated')
        .on('runs')
        .columns(['project_id', 'updated_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('runs_project_updated').execute();
    },
  };
}
