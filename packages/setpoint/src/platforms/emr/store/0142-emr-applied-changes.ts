import type { Kysely } from 'kysely';
import { moveAppliedHistory } from '../../../store/migrations/move-applied-history.js';

/**
 * The EMR apply history and guard move into the core's one history (each configuration the resize plan
 * with every action's value before and after) and guard, created by 0140.
 */
export function migration0142() {
  return {
    up: (db: Kysely<unknown>) =>
      moveAppliedHistory(db, {
        platform: 'emr',
        history: 'emr_applied_configs',
        configuration: 'plan',
        undoes: 'undoes',
        guard: 'emr_project_guard',
        lastGood: null,
      }),
  };
}
