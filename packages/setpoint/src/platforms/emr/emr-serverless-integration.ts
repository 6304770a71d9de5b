import type { ProjectSettings } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { PlatformCore } from '../../platform-api/platform.js';
import { timelineProfile } from '../../service/runs/timeline-profile.js';
import type { JobRun } from './api/emr-serverless-schema.js';
import type { ConnectEmrAccount, EmrAccountClients } from './connection/emr-account.js';
import {
  discoverServerlessJobs,
  emrServerlessJobKey,
  type ServerlessJob,
} from './serverless/emr-serverless-jobs.js';
import { emrServerlessRunReport, isFinishedJobRun, jobRunSpan } from './serverless/emr-serverless-report.js';
import { type PendingBill, reportedApplication, settlePendingBills } from './serverless/pending-bills.js';
import { createEmrServerlessRepository } from './store/emr-serverless-repository.js';

declare module '../../queue/job-queue.js' {
  interface JobPayloads {
    /** Collect a finished EMR Serverless job run for its job's project, or a named one. */
    'emr.serverless-collect': {
      workspaceId: string;
      applicationId: string;
      jobRunId: string;
      projectId?: string | undefined;
    };
  }
}

const dayMs = 86_400_000;
/** How far before the newest import reconciliation looks again (runs that took long to finish). */
const reconcileOverlapMs = 3 * dayMs;
/** The newest runs of a project whose pending bill reconciliation asks for again. */
const pendingBillsRead = 50;

/** A job run not finished yet: its collection is retried. */
export class JobRunNotFinished extends Error {}

export interface DiscoveredServerlessJob extends ServerlessJob {
  /** The project it was imported as, if it was. */
  projectId: string | null;
}

export interface ImportedServerlessJob {
  applicationId: string;
  key: string;
  projectId: string;
  created: boolean;
  queuedRuns: number;
}

const externalRunIdOf = (applicationId: string, jobRunId: string) => `${applicationId}:${jobRunId}`;

/**
 * EMR Serverless in an EMR account: an application's recurring jobs discovered, imported as projects (monitored
 * and advised: EMR Serverless sizes the workers, Setpoint writes nothing), their finished job runs collected
 * with the runtime from the run's timeline and the cost from its billed utilization, and reconciled on the
 * account's schedule.
 */
export function createEmrServerlessIntegration(deps: PlatformCore, connect: ConnectEmrAccount) {
  const store = createEmrServerlessRepository(deps.db);

  async function discover(
    workspaceId: string,
    options: { sinceDays: number; applicationId?: string | undefined },
  ) {
    const { serverless } = await connect(workspaceId);
    const imported = await store.jobs({ workspaceId });
    const found = await discoverServerlessJobs(serverless, {
      since: Date.now() - options.sinceDays * dayMs,
      applicationId: options.applicationId,
    });
    return {
      ungrouped: found.ungrouped,
      applications: found.applications.map(({ application, jobs }) => ({
        application,
        jobs: jobs.map(
          (job): DiscoveredServerlessJob => ({
            ...job,
            projectId:
              imported.find((entry) => entry.applicationId === application.id && entry.key === job.key)
                ?.projectId ?? null,
          }),
        ),
      })),
    };
  }

  async function enqueueCollect(
    workspaceId: string,
    applicationId: string,
    jobRunId: string,
    projectId: string,
  ) {
    await deps.queue.enqueue(
      'emr.serverless-collect',
      { workspaceId, applicationId, jobRunId, projectId },
      { idempotencyKey: `emr.serverless-collect:${workspaceId}:${applicationId}:${jobRunId}:${projectId}` },
    );
  }

  /**
   * Makes an application's jobs projects (one each, named by the job), or adds one job to a project of the
   * account (a job that moved from an EMR cluster to EMR Serverless keeps one project with both kinds of runs),
   * and queues the collection of their finished runs; a job imported before keeps its project.
   */
  async function importJobs(
    workspaceId: string,
    options: {
      applicationId: string;
      keys: readonly string[];
      sinceDays: number;
      projectId?: string | undefined;
      settings?: Partial<ProjectSettings> | undefined;
      collectHistory: boolean;
    },
    actor: string,
  ): Promise<{ imported: ImportedServerlessJob[]; missing: string[] }> {
    const keys = [...new Set(options.keys)];
    if (options.projectId !== undefined) {
      if (keys.length !== 1)
        throw new ValidationError(
          'EMR_SERVERLESS_ONE_JOB',
          `project_id adds one job to a project; ${keys.length} were named`,
        );
      const project = await deps.projects.get(options.projectId);
      if (project.workspaceId !== workspaceId)
        throw new ValidationError(
          'EMR_SERVERLESS_OTHER_ACCOUNT',
          `project ${options.projectId} is not a project of EMR account ${workspaceId}`,
        );
    }
    const found = await discover(workspaceId, {
      sinceDays: options.sinceDays,
      applicationId: options.applicationId,
    });
    const application = found.applications[0];
    if (!application)
      throw new ValidationError(
        'EMR_SERVERLESS_APPLICATION_NOT_FOUND',
        `no EMR Serverless application ${options.applicationId} in account ${workspaceId}'s region (see setpoint emr serverless-discover)`,
      );
    const imported: ImportedServerlessJob[] = [];
    const missing: string[] = [];
    for (const key of keys) {
      const job = application.jobs.find((candidate) => candidate.key === key);
      if (!job) {
        missing.push(key);
        continue;
      }
      let projectId = job.projectId;
      const created = projectId === null && options.projectId === undefined;
      if (projectId === null) {
        projectId =
          options.projectId ??
          (
            await deps.projects.create(
              {
                name: key,
                workspaceId,
                appId: `${application.application.name ?? options.applicationId}/${key}`,
                settings: options.settings,
              },
              actor,
            )
          ).id;
        await store.saveJob({ projectId, workspaceId, applicationId: options.applicationId, key });
      }
      let queuedRuns = 0;
      if (options.collectHistory)
        for (const run of job.runs.filter((candidate) => isFinishedJobRun(candidate.state))) {
          if (await store.collected(projectId, options.applicationId, run.id)) continue;
          await enqueueCollect(workspaceId, options.applicationId, run.id, projectId);
          queuedRuns += 1;
        }
      imported.push({ applicationId: options.applicationId, key, projectId, created, queuedRuns });
    }
    return { imported, missing };
  }

  /** A job run's report, with its application (name, release, architecture) read from the account. */
  async function runReportOf(
    { serverless, account }: Pick<EmrAccountClients, 'serverless' | 'account'>,
    applicationId: string,
    run: JobRun,
    job: string,
  ) {
    return emrServerlessRunReport({
      region: account.connection.region,
      application: reportedApplication(await serverless.getApplication(applicationId)),
      run,
      job,
    });
  }

  async function collect(payload: {
    workspaceId: string;
    applicationId: string;
    jobRunId: string;
    projectId?: string | undefined;
  }): Promise<void> {
    const { workspaceId, applicationId, jobRunId } = payload;
    const { serverless, account } = await connect(workspaceId);
    const run = await serverless.getJobRun(applicationId, jobRunId);
    if (!isFinishedJobRun(run.state))
      throw new JobRunNotFinished(`job run ${jobRunId} of application ${applicationId} is ${run.state}`);
    const key = emrServerlessJobKey({ name: run.name, entryPoint: run.jobDriver?.sparkSubmit?.entryPoint });
    const projectIds = payload.projectId
      ? [payload.projectId]
      : (await store.jobs({ workspaceId }))
          .filter((job) => job.applicationId === applicationId && job.key === key)
          .map((job) => job.projectId);
    const pending: string[] = [];
    for (const projectId of projectIds)
      if (!(await store.collected(projectId, applicationId, jobRunId))) pending.push(projectId);
    if (pending.length === 0) return;
    const report = await runReportOf({ serverless, account }, applicationId, run, key ?? jobRunId);
    const span = jobRunSpan(report.jobRun);
    const failed = run.state !== 'SUCCESS';
    const profile = timelineProfile({
      source: `emr-serverless://${applicationId}/${jobRunId}`,
      platform: {
        kind: 'emr',
        cloud: 'aws',
        region: account.connection.region,
        clusterId: null,
        runtimeVersion: report.application.releaseLabel,
        evidence: ['emr-serverless:GetJobRun (job run timeline)'],
      },
      startMs: span.startMs,
      endMs: span.endMs,
      failed,
      name: run.name ?? null,
      warning:
        'EMR Serverless job run: no cluster and no event log read; runtime from the job run’s timeline (submission to end), cost from its billed resource utilization',
    });
    for (const projectId of pending) {
      const { run: created } = await deps.runs.createWithProfile({
        projectId,
        externalRunId: externalRunIdOf(applicationId, jobRunId),
        clusterReport: report,
        status: failed ? 'FAILED' : 'SUCCESS',
        profile,
      });
      await store.markCollected({ projectId, workspaceId, applicationId, jobRunId, runId: created.id });
      // nothing of the project's is written by Setpoint: only the approvals and the SLA guard hear of the run
      await deps.applies.runFinished(projectId, {
        label: `job run ${jobRunId}`,
        runtimeMinutes: (span.endMs - span.startMs) / 60_000,
        failed,
        startedAt: span.startMs,
      });
    }
  }

  /** A project's newest runs whose cost waits for its bill, with the job run each was collected from. */
  async function pendingBillsOf(projectId: string): Promise<PendingBill[]> {
    const page = await deps.runs.list(projectId, { limit: pendingBillsRead, offset: 0 });
    const waiting = page.items.filter((run) => run.costPending);
    if (waiting.length === 0) return [];
    // the job run is the collected run's record, not read back from its external id: a run uploaded to the
    // project, or collected from an EMR cluster's step, is no job run of this account
    const jobRuns = await store.jobRunsOf(projectId);
    return waiting.flatMap((run) => {
      const jobRun = jobRuns.get(run.id);
      return jobRun ? [{ projectId, runId: run.id, ...jobRun }] : [];
    });
  }

  async function reconcile(workspaceId: string, lastReconciledAt: number | null): Promise<void> {
    const jobs = await store.jobs({ workspaceId });
    if (jobs.length === 0) return;
    const { serverless, account } = await connect(workspaceId);
    const since =
      Math.min(lastReconciledAt ?? Date.now(), ...jobs.map((job) => job.createdAt)) - reconcileOverlapMs;
    for (const applicationId of new Set(jobs.map((job) => job.applicationId)))
      for await (const run of serverless.listJobRuns(applicationId, { createdAfter: new Date(since) })) {
        if (!isFinishedJobRun(run.state)) continue;
        const named = emrServerlessJobKey({ name: run.name });
        const key =
          named ??
          emrServerlessJobKey({
            entryPoint: (await serverless.getJobRun(applicationId, run.id)).jobDriver?.sparkSubmit
              ?.entryPoint,
          });
        for (const job of jobs) {
          if (job.applicationId !== applicationId || job.key !== key) continue;
          if (await store.collected(job.projectId, applicationId, run.id)) continue;
          await enqueueCollect(workspaceId, applicationId, run.id, job.projectId);
        }
      }
    // a run collected before AWS reported its billed utilization keeps a pending cost until the bill is there
    const pending: PendingBill[] = [];
    for (const projectId of new Set(jobs.map((job) => job.projectId)))
      pending.push(...(await pendingBillsOf(projectId)));
    await settlePendingBills(
      pending,
      { serverless, region: account.connection.region },
      async (bill, cost) => {
        await deps.runs.reviseCost(bill.projectId, bill.runId, () => cost);
      },
    );
  }

  return { store, discover, importJobs, collect, reconcile };
}

export type EmrServerlessIntegration = ReturnType<typeof createEmrServerlessIntegration>;
