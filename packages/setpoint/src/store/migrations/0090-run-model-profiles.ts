import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * What the model reads of each run's profile, stored beside it (`eventlog/model-profile.ts`): a
 * recommendation reads its window of runs from this column, never whole profiles. Runs profiled before
 * it get theirs from the `run-model-profiles` pass (`pipeline/model-profile-backfill.ts`).
 */
export function migration0090(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('runs').addColumn('model_profile', types.json).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('runs').dropColumn('model_profile').execute();
    },
  };
}
