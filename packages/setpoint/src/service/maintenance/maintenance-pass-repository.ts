import type { Kysely } from 'kysely';
import type { Database } from '../../store/database-schema.js';

/** Which one-time passes over old rows have finished (migration 0082). */
export function createMaintenancePassRepository(db: Kysely<Database>) {
  return {
    async finished(name: string): Promise<boolean> {
      const row = await db
        .selectFrom('maintenance_passes')
        .select('name')
        .where('name', '=', name)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Idempotent: a pass finished by two workers at once is recorded once. */
    async markFinished(name: string, at = Date.now()): Promise<void> {
      await db
        .insertInto('maintenance_passes')
        .values({ name, finished_at: at })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute();
    },
  };
}

export type MaintenancePassRepository = ReturnType<typeof createMaintenancePassRepository>;
