import type { Kysely, Selectable } from 'kysely';
import type { Database, ParkedJobsTable } from '../../store/database-schema.js';

export type ParkedJobRow = Selectable<ParkedJobsTable>;

/** Data access for jobs that used every attempt or failed on bad input. */
export function createParkedJobRepository(db: Kysely<Database>) {
  return {
    async insert(row: Omit<ParkedJobRow, 'id'>): Promise<void> {
      await db.insertInto('parked_jobs').values(row).execute();
    },

    async count(kind: string): Promise<number> {
      const row = await db
        .selectFrom('parked_jobs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('kind', '=', kind)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** Newest first. */
    async page(page: { limit: number; offset: number }): Promise<{ rows: ParkedJobRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('parked_jobs')
          .selectAll()
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        db
          .selectFrom('parked_jobs')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.count) };
    },
  };
}

export type ParkedJobRepository = ReturnType<typeof createParkedJobRepository>;
