import { type Kysely, sql } from 'kysely';

/**
 * A user name is unique whatever the letters' case (`ADMIN` beside `admin` was accepted): a unique index
 * on lower(username). A database that already holds names differing only in case keeps them (sign-in
 * takes the exact spelling first) and gets the index once they are renamed or removed; the service
 * refuses new ones either way.
 */
export function migration0091() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const clashes = await sql<{ n: number }>`
        select count(*) as n from (
          select lower(username) from users group by lower(username) having count(*) > 1
        ) as clashing`.execute(db);
      if (Number(clashes.rows[0]?.n ?? 0) > 0) return;
      await sql`create unique index if not exists users_username_any_case on users (lower(username))`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await sql`drop index if exists users_username_any_case`.execute(db);
    },
  };
}
