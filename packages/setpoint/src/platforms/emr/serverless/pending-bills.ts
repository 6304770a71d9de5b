import type { RunCost } from '../../../service/runs/run-records.js';
import type { EmrServerlessClient } from '../api/emr-serverless-client.js';
import type { ServerlessApplication } from '../api/emr-serverless-schema.js';
import { emrServerlessRunReport } from './emr-serverless-report.js';
import { emrServerlessRunCost } from './emr-serverless-run.js';

/** A collected run whose cost waits for AWS's bill, with the job run it was collected from. */
export interface PendingBill {
  projectId: string;
  runId: string;
  applicationId: string;
  jobRunId: string;
}

/** The report's application, as GetApplication answers it. */
export function reportedApplication(application: ServerlessApplication) {
  return {
    id: application.applicationId,
    name: application.name ?? null,
    releaseLabel: application.releaseLabel,
    architecture: application.architecture,
  };
}

/**
 * One pass over the runs whose cost waits for AWS's bill: each job run is read again and, once billed, its
 * cost is settled. An application is read once in the pass, however many of its runs wait. Returns how many
 * were settled.
 */
export async function settlePendingBills(
  pending: readonly PendingBill[],
  account: { serverless: Pick<EmrServerlessClient, 'getApplication' | 'getJobRun'>; region: string },
  settle: (bill: PendingBill, cost: RunCost) => Promise<void>,
): Promise<number> {
  const applications = new Map<string, Promise<ServerlessApplication>>();
  const applicationOf = (applicationId: string) => {
    let read = applications.get(applicationId);
    if (!read) {
      read = account.serverless.getApplication(applicationId);
      applications.set(applicationId, read);
    }
    return read;
  };
  let settled = 0;
  for (const bill of pending) {
    const run = await account.serverless.getJobRun(bill.applicationId, bill.jobRunId);
    const cost = emrServerlessRunCost(
      emrServerlessRunReport({
        region: account.region,
        application: reportedApplication(await applicationOf(bill.applicationId)),
        run,
        job: '',
      }),
    );
    if (cost.pending) continue;
    await settle(bill, { ...cost, pending: null });
    settled += 1;
  }
  return settled;
}
