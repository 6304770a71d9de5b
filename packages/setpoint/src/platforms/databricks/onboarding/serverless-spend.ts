import { costPendingMessage } from '@setpoint/api-contract';
import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';

/**
 * A job's serverless spend over Discover's window and how many of its runs it covers, or null with the reason
 * it is not known.
 */
export type ServerlessSpend = { usd: number; billedRuns: number; note: null } | { usd: null; note: string };

/**
 * A job's serverless spend over the window counting every run in it: runs whose billing records have not
 * landed yet (the newest) at the mean of its billed runs, so a late bill does not shrink the job's cost.
 */
export function windowServerlessUsd(
  spend: { usd: number; billedRuns: number },
  runsInWindow: number,
): number {
  return spend.billedRuns > 0 && runsInWindow > spend.billedRuns
    ? (spend.usd / spend.billedRuns) * runsInWindow
    : spend.usd;
}

/**
 * What each job's serverless tasks were billed over the window (system.billing.usage at list prices), read
 * in one statement for the whole workspace. Serverless compute has no cluster to estimate from: without the
 * bill its cost is unknown, never zero.
 */
export async function serverlessSpendByJob(
  billing: ServerlessBillingReader | undefined,
  sinceMs: number,
): Promise<{ of(jobId: string): ServerlessSpend }> {
  if (!billing) {
    const note =
      'runs on serverless compute, billed only in system.billing.usage: give the workspace a SQL warehouse (workspaces check --sql-warehouse-id) to see its cost';
    return { of: () => ({ usd: null, note }) };
  }
  let byJob: Map<string, { usd: number; billedRuns: number }>;
  try {
    byJob = new Map();
    for (const entry of await billing.spendSince(sinceMs)) {
      const sum = byJob.get(entry.jobId) ?? { usd: 0, billedRuns: 0 };
      byJob.set(entry.jobId, { usd: sum.usd + entry.usd, billedRuns: sum.billedRuns + entry.runs });
    }
  } catch (error) {
    const note = `serverless cost unreadable from system.billing.usage: ${(error as Error).message}`;
    return { of: () => ({ usd: null, note }) };
  }
  return {
    of(jobId) {
      const spend = byJob.get(jobId);
      return spend !== undefined && spend.usd > 0
        ? { ...spend, note: null }
        : {
            usd: null,
            note: `${costPendingMessage}: no serverless billing records for its runs in the window yet (Databricks publishes them within hours)`,
          };
    },
  };
}
