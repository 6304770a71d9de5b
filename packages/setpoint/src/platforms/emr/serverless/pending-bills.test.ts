import { describe, expect, it } from 'vitest';
import type { RunCost } from '../../../service/runs/run-records.js';
import type { JobRun, ServerlessApplication } from '../api/emr-serverless-schema.js';
import { type PendingBill, settlePendingBills } from './pending-bills.js';

const application = (applicationId: string): ServerlessApplication => ({
  applicationId,
  name: `app ${applicationId}`,
  releaseLabel: 'emr-7.2.0',
  type: 'SPARK',
  state: 'STARTED',
  architecture: 'X86_64',
});

const jobRun = (applicationId: string, jobRunId: string, billedVcpuHours: number): JobRun => ({
  applicationId,
  jobRunId,
  state: 'SUCCESS',
  releaseLabel: 'emr-7.2.0',
  createdAt: 1_000,
  updatedAt: 2_000,
  startedAt: 1_000,
  endedAt: 2_000,
  ...(billedVcpuHours > 0
    ? {
        billedResourceUtilization: {
          vCPUHour: billedVcpuHours,
          memoryGBHour: 4 * billedVcpuHours,
          storageGBHour: 0,
        },
      }
    : {}),
});

/** An account whose job runs are billed as listed (0: no bill yet), counting what is read. */
function account(billed: Record<string, number>) {
  const reads = { applications: [] as string[], jobRuns: [] as string[] };
  return {
    reads,
    serverless: {
      async getApplication(applicationId: string) {
        reads.applications.push(applicationId);
        return application(applicationId);
      },
      async getJobRun(applicationId: string, jobRunId: string) {
        reads.jobRuns.push(`${applicationId}/${jobRunId}`);
        return jobRun(applicationId, jobRunId, billed[jobRunId] ?? 0);
      },
    },
    region: 'us-east-1',
  };
}

const bill = (projectId: string, applicationId: string, jobRunId: string): PendingBill => ({
  projectId,
  runId: `run-${jobRunId}`,
  applicationId,
  jobRunId,
});

describe('settlePendingBills', () => {
  it('reads each application once in a pass, whatever the number of its runs and projects waiting', async () => {
    const reading = account({ a1: 8, a2: 9, a3: 10, b1: 2 });
    const pending = [
      bill('p1', 'app-a', 'a1'),
      bill('p1', 'app-a', 'a2'),
      bill('p2', 'app-a', 'a3'),
      bill('p2', 'app-b', 'b1'),
    ];
    const settled: Array<[string, RunCost]> = [];

    const count = await settlePendingBills(pending, reading, async (entry, cost) => {
      settled.push([entry.runId, cost]);
    });

    expect(reading.reads.applications).toEqual(['app-a', 'app-b']);
    expect(reading.reads.jobRuns).toEqual(['app-a/a1', 'app-a/a2', 'app-a/a3', 'app-b/b1']);
    expect(count).toBe(4);
    expect(settled.map(([runId]) => runId)).toEqual(['run-a1', 'run-a2', 'run-a3', 'run-b1']);
    expect(settled.every(([, cost]) => cost.pending === null && cost.totalUsd > 0)).toBe(true);
  });

  it('leaves a run AWS has not billed yet pending', async () => {
    const reading = account({ a1: 8 });
    const settled: string[] = [];

    const count = await settlePendingBills(
      [bill('p1', 'app-a', 'a1'), bill('p1', 'app-a', 'a2')],
      reading,
      async (entry) => {
        settled.push(entry.runId);
      },
    );

    expect(count).toBe(1);
    expect(settled).toEqual(['run-a1']);
  });
});
