import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * Alerts: destinations (Slack, signed webhook, email; their secrets encrypted), rules per organization
 * or project, and the notifications sent, unique per de-duplication key.
 */
export function migration0030(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('alert_destinations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        /** JSON of the destination's non-secret settings (address, recipients). */
        .addColumn('settings', types.json, (c) => c.notNull())
        /** SecretBox envelope of the URL or password; never plain text. */
        .addColumn('secret', 'text')
        .addColumn('max_per_hour', 'integer', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('alert_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        /** Null: the rule covers every project of the organization. */
        .addColumn('project_id', 'text')
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('destination_id', 'text', (c) => c.notNull())
        /** JSON of the event's parameters (e.g. the cost-spike threshold). */
        .addColumn('params', types.json, (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        /** What the last evaluation covered (epoch ms); the next one reads only what changed since. */
        .addColumn('evaluated_until', types.bigint)
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('notifications')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('rule_id', 'text', (c) => c.notNull())
        .addColumn('destination_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text')
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('detail', types.json, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notifications_by_destination_time')
        .on('notifications')
        .columns(['destination_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('notifications').execute();
      await db.schema.dropTable('alert_rules').execute();
      await db.schema.dropTable('alert_destinations').execute();
    },
  };
}
