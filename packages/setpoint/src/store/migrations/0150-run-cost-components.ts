import { type Kysely, sql } from 'kysely';
import { convertLegacyRunCost } from './legacy-run-cost.js';

/** Runs read and rewritten per query, so a long history never sits in memory at once. */
const batchSize = 500;

/** The cloud a stored run's cluster facts name, lower case; null when they name none. */
function cloudOf(clusterConfig: string | null): string | null {
  if (clusterConfig === null) return null;
  try {
    const cloud = (JSON.parse(clusterConfig) as { facts?: { cloud?: unknown } }).facts?.cloud;
    return typeof cloud === 'string' && cloud !== '' ? cloud.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * Every stored run cost becomes typed components (`legacy-run-cost.ts`): totals, charts and exports sum
 * them by kind, so an EMR run's lines count as a Databricks run's do. Totals do not change.
 */
export function migration0150() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (let after = ''; ; ) {
        const { rows } = await sql<{ id: string; cost: string; cluster_config: string | null }>`
          select id, cost, cluster_config from runs
          where cost is not null and id > ${after}
          order by id limit ${batchSize}`.execute(db);
        for (const row of rows) {
          let stored: unknown;
          try {
            stored = JSON.parse(row.cost);
          } catch {
            continue; // not a document: left as it is, as every reader does
          }
          const converted = convertLegacyRunCost(stored, cloudOf(row.cluster_config));
          if (converted) {
            await sql`update runs set cost = ${JSON.stringify(converted)} where id = ${row.id}`.execute(db);
          }
        }
        if (rows.length < batchSize) return;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
