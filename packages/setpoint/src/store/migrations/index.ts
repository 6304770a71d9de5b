import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect.js';
import { migration0001 } from './0001-initial.js';
import { migration0002 } from './0002-service-core.js';
import { migration0004 } from './0004-users-and-sessions.js';
import { migration0005 } from './0005-organization-settings.js';
import { migration0006 } from './0006-project-learning-reset.js';
import { migration0007 } from './0007-runs-by-project-and-update.js';
import { migration0010 } from './0010-recommendation-decision.js';
import { migration0030 } from './0030-alerts.js';
import { migration0070 } from './0070-audit-trail.js';
import { migration0071 } from './0071-user-management.js';
import { migration0072 } from './0072-notification-retries.js';
import { migration0080 } from './0080-alert-destination-edits.js';
import { migration0081 } from './0081-recommendation-run-pruned.js';
import { migration0082 } from './0082-maintenance-passes.js';
import { migration0083 } from './0083-project-learning-summaries.js';
import { migration0090 } from './0090-run-model-profiles.js';
import { migration0091 } from './0091-usernames-any-case.js';
import { migration0140 } from './0140-applied-changes.js';
import { migration0143 } from './0143-apply-intents.js';
import { migration0144 } from './0144-applied-changes-met-sla.js';
import { migration0150 } from './0150-run-cost-components.js';
import { migration0160 } from './0160-code-proposals.js';
import { migration0170 } from './0170-apply-approvals.js';

/** Migrations a platform brings for its own tables (see `PlatformPlugin.migrations`). */
export type ExtraMigrations = (dialect: DialectName) => Record<string, Migration>;

/**
 * Migrations are code, so they bundle and run the same on both dialects. Kysely runs them in name order:
 * the core's and every platform's share one numbered sequence (0003 is the Databricks platform's).
 */
export function migrationProvider(dialect: DialectName, extra: ExtraMigrations[] = []): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const core: Record<string, Migration> = {
        '0001-initial': migration0001(dialect),
        '0002-service-core': migration0002(dialect),
        '0004-users-and-sessions': migration0004(dialect),
        '0005-organization-settings': migration0005(dialect),
        '0006-project-learning-reset': migration0006(dialect),
        '0007-runs-by-project-and-update': migration0007(),
        '0010-recommendation-decision': migration0010(),
        '0030-alerts': migration0030(dialect),
        '0070-audit-trail': migration0070(),
        '0071-user-management': migration0071(dialect),
        '0072-notification-retries': migration0072(dialect),
        '0080-alert-destination-edits': migration0080(dialect),
        '0081-recommendation-run-pruned': migration0081(dialect),
        '0082-maintenance-passes': migration0082(dialect),
        '0083-project-learning-summaries': migration0083(dialect),
        '0090-run-model-profiles': migration0090(dialect),
        '0091-usernames-any-case': migration0091(),
        '0140-applied-changes': migration0140(dialect),
        '0143-apply-intents': migration0143(dialect),
        '0144-applied-changes-met-sla': migration0144(dialect),
        '0150-run-cost-components': migration0150(),
        '0160-code-proposals': migration0160(dialect),
        '0170-apply-approvals': migration0170(dialect),
      };
      const all = { ...core };
      for (const migrations of extra) {
        for (const [name, migration] of Object.entries(migrations(dialect))) {
          if (name in all) throw new Error(`two migrations are named ${name}`);
          all[name] = migration;
        }
      }
      return all;
    },
  };
}
