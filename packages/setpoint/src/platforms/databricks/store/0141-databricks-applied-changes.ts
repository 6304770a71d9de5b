import type { Kysely } from 'kysely';
import { moveAppliedHistory } from '../../../store/migrations/move-applied-history.js';

/**
 * The Databricks apply history and guard move into the core's one history (each configuration the whole
 * `new_cluster` as written) and guard, created by 0140.
 */
export function migration0141() {
  return {
    up: (db: Kysely<unknown>) =>
      moveAppliedHistory(db, {
        platform: 'databricks',
        history: 'databricks_applied_configs',
        configuration: 'cluster_spec',
        undoes: null,
        guard: 'databricks_project_guard',
        lastGood: 'last_good_config_id',
      }),
  };
}
