import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectSettings } from '@setpoint/api-contract';
import { ForbiddenError, isAppError, isBadInput, ValidationError } from '@setpoint/foundation/errors';
import { isPermanentS3Error } from '@setpoint/foundation/s3';
import type { PlatformCore } from '../../platform-api/platform.js';
import { type JobHandlers, PermanentJobError } from '../../queue/job-queue.js';
import type { WorkspaceActor } from '../../service/workspaces/workspace-service.js';
import { type EmrConnection, signsAsServer } from './api/emr-connection.js';
import { createEmrWriter } from './apply/emr-writer.js';
import { launchDifferences, launchRecordOf } from './apply/launched-cluster.js';
import { describeEmrStep, downloadEventLog, locateEventLog } from './collect/step-collector.js';
import { checkEmrAccess } from './connection/emr-access-check.js';
import {
  accountConnectionOf,
  createEmrConnector,
  type EmrSignInSummary,
  type LogStoreKeys,
  sealedFieldsOf,
  signInSummary,
} from './connection/emr-account.js';
import { discoverRuns } from './discovery/discover.js';
import {
  type DiscoveredRun,
  type GroupingRule,
  groupRuns,
  keyOf,
  type Workload,
} from './discovery/grouping.js';
import { createEmrServerlessIntegration, JobRunNotFinished } from './emr-serverless-integration.js';
import { createEmrExportService } from './export/emr-export-service.js';
import type { EmrRunReport } from './runs/emr-run-report.js';
import { emrLauncherTagKey, emrRecommendationTagKey } from './runs/emr-run-report-reader.js';
import { createEmrRepository } from './store/emr-repository.js';

declare module '../../queue/job-queue.js' {
  interface JobPayloads {
    /** Collect a finished EMR step (cluster, instances, event log) for its workload's project, or a named one. */
    'emr.collect': { workspaceId: string; clusterId: string; stepId: string; projectId?: string | undefined };
    /** Look for finished steps of imported workloads (new transient clusters, new steps on long-running ones). */
    'emr.reconcile': { workspaceId: string };
  }
}

export const emrJobKinds = ['emr.collect', 'emr.reconcile', 'emr.serverless-collect'] as const;

const dayMs = 86_400_000;
/** How far before the last poll reconciliation looks again (clusters that took long to finish). */
const reconcileOverlapMs = 3 * dayMs;
const finishedStepStates = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'INTERRUPTED']);
/** Collection reasons that no retry heals: the run is kept without its event log, with the reason. */
const unreachableLogCodes = new Set([
  'EMR_EVENT_LOG_ON_HDFS',
  'EMR_STEP_LOGS_UNAVAILABLE',
  'EMR_STEP_NOT_SPARK',
]);
/** The step's stderr or event log is not in the log bucket (yet). */
const notUploadedYetCodes = new Set(['EMR_EVENT_LOG_NOT_FOUND', 'S3_OBJECT_NOT_FOUND']);

export interface EmrAccountInput {
  name: string;
  connection: EmrConnection;
  logStoreKeys?: LogStoreKeys | null | undefined;
  rule: GroupingRule;
}

export interface EmrAccount {
  id: string;
  name: string;
  region: string;
  signIn: EmrSignInSummary;
  rule: GroupingRule;
  lastReconciledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface DiscoveredWorkload extends Workload {
  /** The project it was imported as, if it was. */
  projectId: string | null;
}

export interface ImportedWorkload {
  key: string;
  projectId: string;
  clusterId: string | null;
  created: boolean;
  queuedRuns: number;
}

/** A step not ready for collection yet (still running, cluster still terminating, log not uploaded): retried. */
export class StepNotReady extends Error {}

/** The long-running cluster a workload's newest run used, or null when it runs on transient clusters. */
function longRunningClusterOf(workload: Workload): string | null {
  const newest = workload.runs.at(-1);
  return newest && !newest.transient ? newest.clusterId : null;
}

/** Who launched a cluster that carries no launcher tag: EMR does not say (CloudTrail would). */
const unnamedLauncher = 'emr:RunJobFlow';

const externalRunIdOf = (clusterId: string, stepId: string) => `${clusterId}:${stepId}`;

/** Everything Setpoint does with an EMR account, wired from the core's services. */
export function createEmrIntegration(deps: PlatformCore) {
  const { config } = deps;
  const store = createEmrRepository(deps.db);
  const connect = createEmrConnector({ workspaces: deps.workspaces, outbound: deps.outbound });
  const serverless = createEmrServerlessIntegration(deps, connect);
  const writer = createEmrWriter({
    connect,
    store,
    isServerlessJob: async (projectId) => (await serverless.store.jobs({ projectId })).length > 0,
    exportRecommendation: createEmrExportService({
      store,
      catalog: deps.catalog,
      region: async (workspaceId) => (await deps.workspaces.facts(workspaceId))?.region ?? 'us-east-1',
    }),
  });

  async function presentAccount(workspaceId: string): Promise<EmrAccount> {
    const workspace = await deps.workspaces.get(workspaceId);
    const row = await store.account(workspaceId);
    if (workspace.platform !== 'emr' || !row)
      throw new ValidationError('NOT_EMR', `workspace ${workspaceId} is not an EMR account`);
    const { credentials } = await deps.workspaces.credentials(workspaceId);
    return {
      id: workspace.id,
      name: workspace.name,
      region: workspace.region ?? '',
      signIn: signInSummary(accountConnectionOf(workspace, credentials)),
      rule: row.rule,
      lastReconciledAt: row.lastReconciledAt,
      createdAt: workspace.createdAt,
      updatedAt: workspace.updatedAt,
    };
  }

  /**
   * What storing an account means, or why the actor may not connect it: an account that signs in as
   * Setpoint's own server is an admin's to connect; the endpoints are checked against the SSRF rule
   * (the EMR and S3 endpoints by the workspace service, like a workspace's).
   */
  async function accountRecord(input: Omit<EmrAccountInput, 'name' | 'rule'>, by: WorkspaceActor) {
    if (signsAsServer(input.connection) && by.role !== 'admin')
      throw new ForbiddenError(
        "only admins may connect an EMR account that signs in as Setpoint's own server (credentials kind default-chain, or assume-role without access keys): it would act with the server's AWS identity",
      );
    if (input.connection.stsEndpoint)
      await deps.outbound.assertConfigurable(input.connection.stsEndpoint, 'sts_endpoint');
    return {
      cloud: 'aws',
      region: input.connection.region,
      host: input.connection.endpoint ?? null,
      credentials: sealedFieldsOf({ connection: input.connection, logStoreKeys: input.logStoreKeys ?? null }),
    };
  }

  const accounts = {
    record: accountRecord,
    /** The account's grouping rule, once the core stored the account. */
    saveRule: (workspaceId: string, rule: GroupingRule) => store.saveAccount(workspaceId, rule),
    async create(input: EmrAccountInput, by: WorkspaceActor): Promise<EmrAccount> {
      const workspace = await deps.workspaces.create(
        { name: input.name, platform: 'emr', ...(await accountRecord(input, by)) },
        by.actor,
      );
      await store.saveAccount(workspace.id, input.rule);
      return presentAccount(workspace.id);
    },
    async list(): Promise<EmrAccount[]> {
      const ids = new Set(await store.accountIds());
      const workspaces = (await deps.workspaces.list()).filter(
        (workspace) => workspace.platform === 'emr' && ids.has(workspace.id),
      );
      return Promise.all(workspaces.map((workspace) => presentAccount(workspace.id)));
    },
    get: presentAccount,
    async setRule(workspaceId: string, rule: GroupingRule): Promise<EmrAccount> {
      await presentAccount(workspaceId);
      await store.saveAccount(workspaceId, rule);
      return presentAccount(workspaceId);
    },
    /** Deletes the account; its projects stay with their runs, unlinked. */
    async remove(workspaceId: string, actor: string): Promise<void> {
      await presentAccount(workspaceId);
      await accounts.forget(workspaceId);
      await deps.workspaces.remove(workspaceId, actor);
    },
    /** The platform's own rows of an account (its rule, its serverless jobs' links); the core removes the rest. */
    async forget(workspaceId: string): Promise<void> {
      await store.removeAccount(workspaceId);
      await serverless.store.removeAccount(workspaceId);
    },
  };

  async function checkAccess(workspaceId: string, logLocations: readonly string[] = []) {
    const { client, s3 } = await connect(workspaceId);
    return checkEmrAccess(client, s3, { logLocations });
  }

  async function ruleOf(workspaceId: string, given?: GroupingRule): Promise<GroupingRule> {
    if (given) return given;
    const account = await store.account(workspaceId);
    if (!account) throw new ValidationError('NOT_EMR', `workspace ${workspaceId} is not an EMR account`);
    return account.rule;
  }

  async function discover(
    workspaceId: string,
    options: { sinceDays: number; rule?: GroupingRule | undefined },
  ): Promise<{
    rule: GroupingRule;
    clusters: number;
    workloads: DiscoveredWorkload[];
    ungrouped: { run: DiscoveredRun; reason: string }[];
  }> {
    const { client } = await connect(workspaceId);
    const rule = await ruleOf(workspaceId, options.rule);
    const imported = await store.workloads(workspaceId);
    const { runs, clusters } = await discoverRuns(client, {
      since: Date.now() - options.sinceDays * dayMs,
      alsoClusterIds: imported.flatMap((workload) => (workload.clusterId ? [workload.clusterId] : [])),
    });
    const grouping = groupRuns(runs, rule);
    return {
      rule,
      clusters,
      workloads: grouping.workloads.map((workload) => ({
        ...workload,
        projectId: imported.find((entry) => entry.key === workload.key)?.projectId ?? null,
      })),
      ungrouped: grouping.ungrouped,
    };
  }

  async function enqueueCollect(workspaceId: string, clusterId: string, stepId: string, projectId?: string) {
    await deps.queue.enqueue(
      'emr.collect',
      { workspaceId, clusterId, stepId, projectId },
      {
        idempotencyKey: `emr.collect:${workspaceId}:${clusterId}:${stepId}${projectId ? `:${projectId}` : ''}`,
      },
    );
  }

  /**
   * Makes recurring workloads projects (one each, named by its key, Gradient's app id) and queues the
   * collection of their finished runs; a workload imported before keeps its project.
   */
  async function importWorkloads(
    workspaceId: string,
    options: {
      keys: readonly string[];
      sinceDays: number;
      rule?: GroupingRule | undefined;
      settings?: Partial<ProjectSettings> | undefined;
      collectHistory: boolean;
    },
    actor: string,
  ): Promise<{ imported: ImportedWorkload[]; missing: string[] }> {
    const found = await discover(workspaceId, { sinceDays: options.sinceDays, rule: options.rule });
    const imported: ImportedWorkload[] = [];
    const missing: string[] = [];
    for (const key of new Set(options.keys)) {
      const workload = found.workloads.find((candidate) => candidate.key === key);
      if (!workload) {
        missing.push(key);
        continue;
      }
      let projectId = workload.projectId;
      const clusterId = longRunningClusterOf(workload);
      const created = projectId === null;
      if (projectId === null) {
        const project = await deps.projects.create(
          { name: key, workspaceId, appId: key, settings: options.settings },
          actor,
        );
        projectId = project.id;
        await store.saveWorkload({ projectId, workspaceId, key, rule: found.rule, clusterId });
      }
      let queuedRuns = 0;
      if (options.collectHistory)
        for (const run of workload.runs.filter((candidate) => finishedStepStates.has(candidate.stepState))) {
          if (await store.collected(projectId, run.clusterId, run.stepId)) continue;
          await enqueueCollect(workspaceId, run.clusterId, run.stepId, projectId);
          queuedRuns += 1;
        }
      imported.push({ key, projectId, clusterId, created, queuedRuns });
    }
    return { imported, missing };
  }

  /** The projects a step belongs to: the named one, or the imported workloads whose key it has. */
  async function projectsOfStep(workspaceId: string, report: EmrRunReport): Promise<string[]> {
    const run: DiscoveredRun = {
      clusterId: report.cluster.id,
      clusterName: report.cluster.name,
      clusterState: report.cluster.state,
      transient: report.cluster.transient,
      tags: report.cluster.tags,
      createdAt: report.cluster.createdAt,
      stepId: report.step.id,
      stepName: report.step.name,
      stepState: report.step.state,
      startedAt: report.step.startedAt,
      endedAt: report.step.endedAt,
    };
    return (await store.workloads(workspaceId)).flatMap((workload) => {
      const key = keyOf(run, workload.rule);
      return 'key' in key && key.key === workload.key ? [workload.projectId] : [];
    });
  }

  async function collect(
    payload: { workspaceId: string; clusterId: string; stepId: string; projectId?: string | undefined },
    attempt: number,
  ): Promise<void> {
    const { workspaceId, clusterId, stepId } = payload;
    const { client, s3, account } = await connect(workspaceId);
    const { cluster, report } = await describeEmrStep(client, {
      region: account.connection.region,
      clusterId,
      stepId,
    });
    if (!finishedStepStates.has(report.step.state))
      throw new StepNotReady(`step ${stepId} of ${clusterId} is ${report.step.state}`);
    if (report.scope === 'cluster' && report.cluster.endedAt === null)
      throw new StepNotReady(`cluster ${clusterId} ran only this step and has not terminated yet`);
    const projectIds = payload.projectId ? [payload.projectId] : await projectsOfStep(workspaceId, report);
    const pending: string[] = [];
    for (const projectId of projectIds)
      if (!(await store.collected(projectId, clusterId, stepId))) pending.push(projectId);
    if (pending.length === 0) return;

    const status = report.step.state === 'COMPLETED' ? 'SUCCESS' : 'FAILED';
    const externalRunId = externalRunIdOf(clusterId, stepId);
    let located: Awaited<ReturnType<typeof locateEventLog>> | undefined;
    let unreachable: string | undefined;
    try {
      located = await locateEventLog(s3, cluster, report);
    } catch (error) {
      const lastAttempt = attempt >= config.logMaxIncompleteAttempts;
      if (isAppError(error) && unreachableLogCodes.has(error.code)) unreachable = error.message;
      // EMR uploads step logs every few minutes after the step ends: missing ones may still come
      else if (isAppError(error) && notUploadedYetCodes.has(error.code) && lastAttempt)
        unreachable = `the step's logs were not uploaded within the wait: ${error.message}`;
      else if (isAppError(error) && notUploadedYetCodes.has(error.code))
        throw new StepNotReady(error.message);
      else throw error;
    }
    if (!located) {
      deps.logger.warn(
        { workspaceId, clusterId, stepId, reason: unreachable },
        'EMR step kept without its event log',
      );
      for (const projectId of pending) {
        const { run } = await deps.runs.createWithoutEventLog({
          projectId,
          externalRunId,
          clusterReport: report,
          status: 'INCOMPLETE',
          incompleteReason: unreachable ?? 'no event log',
        });
        await store.markCollected({ projectId, workspaceId, clusterId, stepId, runId: run.id });
        await tellApplies(projectId, report, status);
      }
      return;
    }
    await mkdir(deps.scratchDir, { recursive: true });
    const directory = await mkdtemp(path.join(deps.scratchDir, 'emr-collect-'));
    try {
      const paths = await downloadEventLog(s3, located.eventLogObjects, directory);
      const files = await Promise.all(
        paths.map(async (file) => ({
          name: path.basename(file),
          path: file,
          bytes: (await stat(file)).size,
        })),
      );
      for (const projectId of pending) {
        const { run } = await deps.runs.createFromUpload({
          projectId,
          externalRunId,
          clusterReport: located.report,
          status,
          files,
        });
        await store.markCollected({ projectId, workspaceId, clusterId, stepId, runId: run.id });
        await tellApplies(projectId, located.report, status);
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /**
   * What a collected step tells the apply core. A step on the project's long-running cluster goes to the SLA
   * guard. A step on a cluster its launcher started (transient, or a project not linked to a long-running
   * one): the launch is recorded as the recommendation it was tagged with, applied, and an approval that
   * waited while it ran is superseded.
   */
  async function tellApplies(projectId: string, report: EmrRunReport, status: string): Promise<void> {
    const workload = await store.workloadOfProject(projectId);
    const run = {
      label: `step ${report.step.id}`,
      runtimeMinutes: ((report.step.endedAt ?? 0) - (report.step.startedAt ?? 0)) / 60_000,
      failed: status === 'FAILED',
      startedAt: report.step.startedAt,
    };
    if (workload?.clusterId) {
      if (workload.clusterId === report.cluster.id) await deps.applies.runFinished(projectId, run);
      return;
    }
    const recommendationId = report.cluster.tags[emrRecommendationTagKey];
    if (recommendationId)
      await deps.applies.recordLaunch({
        projectId,
        recommendationId,
        configuration: launchRecordOf(report),
        actor: report.cluster.tags[emrLauncherTagKey] ?? unnamedLauncher,
        differences: (recommended) => launchDifferences(report, recommended),
      });
    // nothing of the project's is written by Setpoint: only the approvals hear of the run
    await deps.applies.runFinished(projectId, run);
  }

  async function reconcile(workspaceId: string): Promise<void> {
    const account = await store.account(workspaceId);
    if (!account) return;
    const startedAt = Date.now();
    await serverless.reconcile(workspaceId, account.lastReconciledAt);
    const workloads = await store.workloads(workspaceId);
    if (workloads.length === 0) {
      await store.markReconciled(workspaceId, startedAt);
      return;
    }
    const { client } = await connect(workspaceId);
    const since =
      Math.min(account.lastReconciledAt ?? startedAt, ...workloads.map((w) => w.createdAt)) -
      reconcileOverlapMs;
    const { runs } = await discoverRuns(client, {
      since,
      alsoClusterIds: workloads.flatMap((workload) => (workload.clusterId ? [workload.clusterId] : [])),
    });
    for (const run of runs.filter((candidate) => finishedStepStates.has(candidate.stepState)))
      for (const workload of workloads) {
        const key = keyOf(run, workload.rule);
        if (!('key' in key) || key.key !== workload.key) continue;
        if (await store.collected(workload.projectId, run.clusterId, run.stepId)) continue;
        await enqueueCollect(workspaceId, run.clusterId, run.stepId, workload.projectId);
      }
    await store.markReconciled(workspaceId, startedAt);
  }

  async function scheduleReconciliation(bucket: string): Promise<void> {
    const imported = [...(await store.workloads()), ...(await serverless.store.jobs())];
    for (const workspaceId of new Set(imported.map((entry) => entry.workspaceId)))
      await deps.queue.enqueue(
        'emr.reconcile',
        { workspaceId },
        { idempotencyKey: `emr.reconcile:${workspaceId}:${bucket}` },
      );
  }

  const handlers: Partial<JobHandlers> = {
    async 'emr.collect'(payload, context) {
      try {
        await collect(payload, context.attempt);
      } catch (error) {
        if (error instanceof StepNotReady)
          deps.logger.info({ ...payload, reason: error.message }, 'EMR step not ready for collection');
        // an unknown step or cluster, a report that does not validate, or a log bucket that refuses
        // Setpoint's keys will not change on retry
        else if (isBadInput(error) || isPermanentS3Error(error))
          throw new PermanentJobError((error as Error).message, { cause: error });
        throw error;
      }
    },
    async 'emr.reconcile'({ workspaceId }) {
      await reconcile(workspaceId);
    },
    async 'emr.serverless-collect'(payload) {
      try {
        await serverless.collect(payload);
      } catch (error) {
        if (error instanceof JobRunNotFinished)
          deps.logger.info({ ...payload, reason: error.message }, 'EMR Serverless job run not finished yet');
        // an unknown application or job run, or an answer that does not validate, will not change on retry
        else if (isBadInput(error)) throw new PermanentJobError((error as Error).message, { cause: error });
        throw error;
      }
    },
  };

  return {
    store,
    serverless,
    connect,
    accounts,
    writer,
    checkAccess,
    discover,
    importWorkloads,
    enqueueCollect,
    collect,
    reconcile,
    scheduleReconciliation,
    latestRecommendationId: async (projectId: string) => (await deps.recommendations.latest(projectId)).id,
    handlers,
  };
}

export type EmrIntegration = ReturnType<typeof createEmrIntegration>;
