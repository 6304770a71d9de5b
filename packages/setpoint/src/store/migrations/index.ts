import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect.js';
import { migration0001 } from './0001-initial.js';
import { migration0002 } from './0002-service-core.js';
import { migration0003 } from './0003-databricks-integration.js';
import { migration0004 } from './0004-users-and-sessions.js';
import { migration0005 } from './0005-organization-settings.js';
import { migration0006 } from './0006-project-learning-reset.js';
import { migration0007 } from './0007-runs-by-project-and-update.js';

/** Migrations are code, listed in order, so they bundle and run the same on both dialects. */
export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001-initial': migration0001(dialect),
        '0002-service-core': migration0002(dialect),
        '0003-databricks-integration': migration0003(dialect),
        '0004-users-and-sessions': migration0004(dialect),
        '0005-organization-settings': migration0005(dialect),
        '0006-project-learning-reset': migration0006(dialect),
        '0007-runs-by-project-and-update': migration0007(),
      };
    },
  };
}
