import { describe, expect, it } from 'vitest';
import type { JobRun, JobRunSummary } from '../api/emr-serverless-schema.js';
import { discoverServerlessJobs, emrServerlessJobKey } from './emr-serverless-jobs.js';
import { emrServerlessRunReport, jobRunSpan } from './emr-serverless-report.js';
import { emrServerlessRunCost } from './emr-serverless-run.js';

const summary = (id: string, name: string | undefined, createdAt: number): JobRunSummary => ({
  applicationId: 'app1',
  id,
  ...(name ? { name } : {}),
  state: 'SUCCESS',
  createdAt,
  updatedAt: createdAt,
});

const jobRun = (overrides: Partial<JobRun> = {}): JobRun => ({
  applicationId: 'app1',
  jobRunId: 'run1',
  name: 'orders-2026-12-01',
  state: 'SUCCESS',
  releaseLabel: 'emr-7.2.0',
  createdAt: 1_000_000,
  updatedAt: 1_000_000 + 50 * 60_000,
  startedAt: 1_000_000 + 60_000,
  endedAt: 1_000_000 + 40 * 60_000,
  ...overrides,
});

const application = {
  id: 'app1',
  name: 'analytics',
  releaseLabel: 'emr-7.2.0',
  architecture: 'X86_64' as const,
};

describe('EMR Serverless jobs', () => {
  it('keys a run by its name without run-specific parts, else by its entry point, else not at all', () => {
    expect(emrServerlessJobKey({ name: 'orders-2026-12-01T02:00', entryPoint: 's3://x.py' })).toBe('orders');
    expect(emrServerlessJobKey({ entryPoint: 's3://jobs/sessions.py' })).toBe('s3://jobs/sessions.py');
    expect(emrServerlessJobKey({})).toBeNull();
  });

  it('groups the runs of each application into jobs, reading the entry point of unnamed runs only', async () => {
    const read: string[] = [];
    const client = {
      async *listApplications() {
        yield { ...application, id: 'app1', type: 'SPARK', state: 'STARTED' };
        yield { ...application, id: 'app2', type: 'SPARK', state: 'STOPPED' };
      },
      async *listJobRuns(applicationId: string) {
        if (applicationId !== 'app1') return;
        yield summary('r2', 'orders-2026-12-02', 2);
        yield summary('r1', 'orders-2026-12-01', 1);
        yield summary('r3', undefined, 3);
        yield summary('r4', undefined, 4);
      },
      async getJobRun(_applicationId: string, id: string) {
        read.push(id);
        return jobRun({
          jobRunId: id,
          name: undefined,
          ...(id === 'r3' ? { jobDriver: { sparkSubmit: { entryPoint: 's3://jobs/sessions.py' } } } : {}),
        });
      },
    };
    const found = await discoverServerlessJobs(client, { since: 0 });
    expect(read).toEqual(['r3', 'r4']);
    expect(found.ungrouped).toBe(1);
    expect(found.applications.map((entry) => entry.application.id)).toEqual(['app1', 'app2']);
    expect(
      found.applications[0]?.jobs.map((job) => [job.key, job.runs.map((run) => run.id), job.recurring]),
    ).toEqual([
      ['orders', ['r1', 'r2'], true],
      ['s3://jobs/sessions.py', ['r3'], false],
    ]);
    const one = await discoverServerlessJobs(client, { since: 0, applicationId: 'app2' });
    expect(one.applications.map((entry) => entry.application.id)).toEqual(['app2']);
  });

  it('holds a run to its span from submission to end (its last update without an end)', () => {
    const report = emrServerlessRunReport({ region: 'us-east-1', application, run: jobRun(), job: 'orders' });
    expect(jobRunSpan(report.jobRun)).toEqual({ startMs: 1_000_000, endMs: 1_000_000 + 40 * 60_000 });
    const noEnd = emrServerlessRunReport({
      region: 'us-east-1',
      application,
      run: jobRun({ endedAt: undefined }),
      job: 'orders',
    });
    expect(jobRunSpan(noEnd.jobRun).endMs).toBe(1_000_000 + 50 * 60_000);
  });

  it('costs a billed run at the published price and leaves an unbilled one pending, never $0', () => {
    const billed = emrServerlessRunReport({
      region: 'us-east-1',
      application,
      run: jobRun({ billedResourceUtilization: { vCPUHour: 2, memoryGBHour: 8, storageGBHour: 0 } }),
      job: 'orders',
    });
    expect(emrServerlessRunCost(billed).totalUsd).toBeCloseTo(2 * 0.052624 + 8 * 0.0057785, 9);
    expect(emrServerlessRunCost(billed).pending).toBeUndefined();
    const zero = emrServerlessRunReport({
      region: 'us-east-1',
      application,
      run: jobRun({ billedResourceUtilization: { vCPUHour: 0, memoryGBHour: 0, storageGBHour: 0 } }),
      job: 'orders',
    });
    expect(zero.billed).toBeNull();
    expect(emrServerlessRunCost(zero).pending?.reason).toMatch(/carries no billedResourceUtilization yet/);
    const elsewhere = emrServerlessRunReport({
      region: 'ap-south-2',
      application,
      run: jobRun({ billedResourceUtilization: { vCPUHour: 2, memoryGBHour: 8, storageGBHour: 0 } }),
      job: 'orders',
    });
    expect(emrServerlessRunCost(elsewhere).pending?.reason).toMatch(
      /no published EMR Serverless price for ap-south-2/,
    );
  });
});
