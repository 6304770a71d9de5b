import type { StatementClient, StatementRow } from '../api/statements.js';

/** What system.billing.usage billed one job run's serverless compute, priced with system.billing.list_prices. */
export interface ServerlessRunBill {
  dbus: number;
  usd: number;
  /** The run's performance mode as billed (`product_features.performance_target`), null without records. */
  performanceTarget: string | null;
  records: number;
  /** RETRACTION and RESTATEMENT records among them. */
  corrections: number;
  /** End of the latest hour billed so far (NaN: no record). */
  billedUntilMs: number;
}

/** A job's serverless usage over a window, per performance mode: what it cost and how long its tasks ran. */
export interface ServerlessJobSpend {
  jobId: string;
  performanceTarget: string;
  runs: number;
  dbus: number;
  usd: number;
  /** Execution seconds of those runs' tasks (system.lakeflow.job_task_run_timeline). */
  executionSeconds: number;
}

const num = (value: string | null | undefined): number =>
  value === null || value === undefined ? 0 : Number(value);
const time = (value: string | null | undefined): number => (value ? Date.parse(value) : Number.NaN);

const pricedUsage = `
FROM system.billing.usage u
JOIN system.billing.list_prices p
  ON u.sku_name = p.sku_name AND u.cloud = p.cloud AND u.usage_unit = p.usage_unit
 AND u.usage_end_time >= p.price_start_time
 AND (p.price_end_time IS NULL OR u.usage_end_time < p.price_end_time)`;

/**
 * One job run's serverless records, summed: Databricks splits a run's serverless usage over several records
 * per hour (their sum is the run's DBUs), a retraction cancels its original and a restatement replaces it.
 * Serverless records carry no cluster id: they are the run's records with `is_serverless`.
 */
export const serverlessRunBillSql = `
SELECT COALESCE(SUM(u.usage_quantity), 0) AS dbus,
       COALESCE(SUM(u.usage_quantity * p.pricing.default), 0) AS usd,
       MAX(u.product_features.performance_target) AS performance_target,
       COUNT(*) AS records,
       COALESCE(SUM(CASE WHEN u.record_type IN ('RETRACTION', 'RESTATEMENT') THEN 1 ELSE 0 END), 0) AS corrections,
       MAX(u.usage_end_time) AS billed_until
${pricedUsage}
WHERE u.usage_metadata.job_run_id = :job_run_id AND u.product_features.is_serverless = true
  AND u.usage_unit = 'DBU'`;

/**
 * Every job's serverless usage since a time, per job and performance mode, beside how long the billed runs'
 * tasks executed: what Discover shows per job, and the rate a run is estimated at before its bill arrives.
 */
export const serverlessSpendSql = `
WITH bills AS (
  SELECT u.usage_metadata.job_id AS job_id, u.usage_metadata.job_run_id AS job_run_id,
         MAX(u.product_features.performance_target) AS performance_target,
         SUM(u.usage_quantity) AS dbus, SUM(u.usage_quantity * p.pricing.default) AS usd
  ${pricedUsage}
  WHERE u.product_features.is_serverless = true AND u.usage_unit = 'DBU'
    AND u.usage_start_time >= :since AND u.usage_metadata.job_run_id IS NOT NULL
  GROUP BY u.usage_metadata.job_id, u.usage_metadata.job_run_id
), tasks AS (
  SELECT job_run_id, SUM(execution_duration_seconds) AS seconds
  FROM system.lakeflow.job_task_run_timeline
  WHERE period_start_time >= :since AND execution_duration_seconds IS NOT NULL
  GROUP BY job_run_id
)
SELECT b.job_id, b.performance_target, COUNT(*) AS runs, SUM(b.dbus) AS dbus, SUM(b.usd) AS usd,
       COALESCE(SUM(t.seconds), 0) AS execution_seconds
FROM bills b LEFT JOIN tasks t ON t.job_run_id = b.job_run_id
GROUP BY b.job_id, b.performance_target`;

/**
 * The list price of the serverless jobs SKU of the workspace's cloud and plan, as of now: what a serverless DBU
 * costs before any has been billed in the workspace.
 */
export const serverlessListPriceSql = `
SELECT sku_name, pricing.default AS usd_per_dbu
FROM system.billing.list_prices
WHERE usage_unit = 'DBU' AND cloud = :cloud AND sku_name LIKE :sku_pattern AND price_end_time IS NULL
ORDER BY sku_name
LIMIT 1`;

function spendOf(row: StatementRow): ServerlessJobSpend {
  return {
    jobId: row.job_id ?? '',
    performanceTarget: row.performance_target ?? 'PERFORMANCE_OPTIMIZED',
    runs: num(row.runs),
    dbus: num(row.dbus),
    usd: num(row.usd),
    executionSeconds: num(row.execution_seconds),
  };
}

/** Reads serverless job usage from a workspace's system tables, one statement per question. */
export function createServerlessBillingReader(statements: Pick<StatementClient, 'query'>) {
  return {
    async runBill(jobRunId: string): Promise<ServerlessRunBill> {
      const [row] = await statements.query(serverlessRunBillSql, [{ name: 'job_run_id', value: jobRunId }]);
      return {
        dbus: num(row?.dbus),
        usd: num(row?.usd),
        performanceTarget: row?.performance_target ?? null,
        records: num(row?.records),
        corrections: num(row?.corrections),
        billedUntilMs: time(row?.billed_until),
      };
    },

    /** The serverless jobs DBU's list price for a cloud (`AWS`, `AZURE`) and plan (`PREMIUM`…), null without one. */
    async listPrice(cloud: string, plan: string): Promise<{ sku: string; usdPerDbu: number } | null> {
      const [row] = await statements.query(serverlessListPriceSql, [
        { name: 'cloud', value: cloud.toUpperCase() },
        { name: 'sku_pattern', value: `${plan.toUpperCase()}_JOBS_SERVERLESS_COMPUTE%` },
      ]);
      const usdPerDbu = num(row?.usd_per_dbu);
      return row?.sku_name && usdPerDbu > 0 ? { sku: row.sku_name, usdPerDbu } : null;
    },

    async spendSince(sinceMs: number): Promise<ServerlessJobSpend[]> {
      const rows = await statements.query(serverlessSpendSql, [
        { name: 'since', value: new Date(sinceMs).toISOString(), type: 'TIMESTAMP' },
      ]);
      return rows.filter((row) => row.job_id).map(spendOf);
    },
  };
}

export type ServerlessBillingReader = ReturnType<typeof createServerlessBillingReader>;
