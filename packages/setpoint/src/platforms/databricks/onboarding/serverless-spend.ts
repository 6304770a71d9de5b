import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';

/** A job's serverless spend over Discover's window, or null with the reason it is not known. */
export type ServerlessSpend = { usd: number; note: null } | { usd: null; note: string };

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
  let usdByJob: Map<string, number>;
  try {
    usdByJob = new Map();
    for (const entry of await billing.spendSince(sinceMs))
      usdByJob.set(entry.jobId, (usdByJob.get(entry.jobId) ?? 0) + entry.usd);
  } catch (error) {
    const note = `serverless cost unreadable from system.billing.usage: ${(error as Error).message}`;
    return { of: () => ({ usd: null, note }) };
  }
  return {
    of(jobId) {
      const usd = usdByJob.get(jobId);
      return usd !== undefined && usd > 0
        ? { usd, note: null }
        : {
            usd: null,
            note: 'no serverless billing records for its runs in the window yet (Databricks publishes them within hours)',
          };
    },
  };
}
