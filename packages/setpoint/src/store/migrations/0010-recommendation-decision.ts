import type { Kysely } from 'kysely';

/**
 * A recommendation keeps its decision in structured form (keep or change, the SLA's feasibility, what it
 * rests on, what each candidate filter removed): the API, the CLI and the dashboard read it from there.
 */
export function migration0010() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('recommendations').addColumn('decision', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('recommendations').dropColumn('decision').execute();
    },
  };
}
