import { isAppError } from '@setpoint/foundation/errors';
import { createCostModel } from '../../cost/cost-model.js';
import type { PlatformCore } from '../../platform-api/platform.js';
import { type JobHandlers, PermanentJobError } from '../../queue/job-queue.js';
import type { RecommendationEvent } from '../../service/recommendations/recommendation-events.js';
import type { TransportOptions } from './api/transport.js';
import { createApplier } from './apply/applier.js';
import { decideAutoApply } from './apply/auto-apply-policy.js';
import { createCollector, NotReadyYet } from './collect/collector.js';
import { probeS3LogDestination } from './collect/log-store-s3.js';
import { checkWorkspaceAccess } from './connection/access-check.js';
import { createWorkspaceConnector } from './connection/workspace-connection.js';
import { createExportService } from './export/export-service.js';
import { createDiscovery } from './onboarding/discovery.js';
import { createOnboardingService } from './onboarding/onboarding-service.js';
import { createDatabricksRepository } from './store/databricks-repository.js';

declare module '../../queue/job-queue.js' {
  interface JobPayloads {
    /**
     * Collect a finished Databricks run (run, cluster, events, event log) for the projects of its job,
     * or for one named project (a one-time run submitted for it, e.g. from Airflow).
     */
    'databricks.collect': { workspaceId: string; runId: string; projectId?: string | undefined };
    /** Write a recommendation into the Databricks job. */
    'databricks.apply': {
      projectId: string;
      recommendationId: string;
      actor: string;
      kind: 'apply' | 'auto-apply';
    };
    /** Look for finished runs of onboarded jobs that no webhook announced. */
    'databricks.reconcile': { workspaceId: string };
  }
}

export const databricksJobKinds = ['databricks.collect', 'databricks.apply', 'databricks.reconcile'] as const;

export interface DatabricksOptions {
  /** Requests to workspaces: timeouts, retries, concurrency (tests shorten them). */
  transport?: Partial<Omit<TransportOptions, 'host' | 'token'>>;
}

const weekMs = 7 * 86_400_000;

/** Everything Setpoint does with a Databricks workspace, wired from the core's services. */
export function createDatabricksIntegration(deps: PlatformCore, options: DatabricksOptions = {}) {
  const { config } = deps;
  const store = createDatabricksRepository(deps.db);
  const connect = createWorkspaceConnector({
    workspaces: deps.workspaces,
    outbound: deps.outbound,
    transport: options.transport,
  });
  const applier = createApplier({
    connect,
    store,
    projects: deps.projects,
    recommendations: deps.recommendations,
  });
  const onboarding = createOnboardingService({
    connect,
    store,
    projects: deps.projects,
    workspaces: deps.workspaces,
    publicUrl: deps.publicUrl,
  });
  const collector = createCollector({
    connect,
    store,
    projects: deps.projects,
    runs: deps.runs,
    applier,
    scratchDir: deps.scratchDir,
    logger: deps.logger,
    completenessPollMs: config.logCompletenessPollMs,
    maxIncompleteAttempts: config.logMaxIncompleteAttempts,
    slaRevertFactor: config.slaRevertFactor,
  });
  const discover = createDiscovery({ connect, store, costModel: createCostModel(deps.catalog) });
  const exportRecommendation = createExportService({
    connect,
    projects: deps.projects,
    recommendations: deps.recommendations,
  });

  async function enqueueCollect(workspaceId: string, runId: string, projectId?: string): Promise<void> {
    await deps.queue.enqueue(
      'databricks.collect',
      { workspaceId, runId, projectId },
      { idempotencyKey: `databricks.collect:${workspaceId}:${runId}${projectId ? `:${projectId}` : ''}` },
    );
  }

  /** Called when the pipeline finishes a recommendation: applies it when the project allows it. */
  async function onRecommendationReady(projectId: string, recommendationId: string): Promise<void> {
    const project = await deps.projects.get(projectId);
    if (!project.workspaceId || !project.jobId) return;
    const guard = await store.guard(projectId);
    const since = Date.now() - weekMs;
    const recent = (await store.appliedConfigs(projectId)).filter(
      (config) => config.kind === 'auto-apply' && config.createdAt >= since,
    );
    const decision = decideAutoApply({
      settings: project.settings,
      paused: guard.paused,
      pauseReason: guard.pauseReason,
      changesInPeriod: recent.length,
      maxChangesPerPeriod: config.maxAutoChangesPerWeek,
      now: Date.now(),
    });
    if (!decision.apply) {
      deps.logger.info(
        { projectId, recommendationId, reason: decision.reason },
        'recommendation not auto-applied',
      );
      return;
    }
    await deps.queue.enqueue(
      'databricks.apply',
      { projectId, recommendationId, actor: 'setpoint:auto-apply', kind: 'auto-apply' },
      { idempotencyKey: `databricks.apply:${recommendationId}` },
    );
  }

  /** A person asked to apply a recommendation: write it into the job when the project is linked to one. */
  async function applyRequested(event: RecommendationEvent): Promise<void> {
    const project = await deps.projects.get(event.projectId);
    if (!project.workspaceId || !project.jobId) return;
    await deps.queue.enqueue(
      'databricks.apply',
      {
        projectId: event.projectId,
        recommendationId: event.recommendationId,
        actor: event.actor,
        kind: 'apply',
      },
      { idempotencyKey: `databricks.apply:${event.recommendationId}:${event.at}` },
    );
  }

  /** Queues a poll of every onboarded job for runs a lost webhook never announced. */
  async function scheduleReconciliation(bucket: string): Promise<void> {
    const workspaceIds = new Set((await store.onboardedJobs()).map((row) => row.workspace_id));
    for (const workspaceId of workspaceIds) {
      await deps.queue.enqueue(
        'databricks.reconcile',
        { workspaceId },
        { idempotencyKey: `databricks.reconcile:${workspaceId}:${bucket}` },
      );
    }
  }

  const handlers: Partial<JobHandlers> = {
    async 'databricks.collect'({ workspaceId, runId, projectId }, context) {
      try {
        await collector.collect(workspaceId, runId, context.attempt, projectId);
      } catch (error) {
        if (error instanceof NotReadyYet)
          deps.logger.info({ workspaceId, runId, reason: error.message }, 'run not ready for collection');
        throw error;
      }
    },
    async 'databricks.apply'(payload) {
      try {
        await applier.apply(payload.projectId, payload.recommendationId, {
          actor: payload.actor,
          kind: payload.kind,
        });
      } catch (error) {
        // a refusal (paused, scaling type, not ready, unlinked) will not change on retry: park it, visibly
        if (isAppError(error) && error.kind !== 'upstream' && error.kind !== 'rate_limited') {
          throw new PermanentJobError(error.message, { cause: error });
        }
        throw error;
      }
    },
    async 'databricks.reconcile'({ workspaceId }) {
      const { client } = await connect(workspaceId);
      for (const job of await store.onboardedJobs(workspaceId)) {
        for await (const run of client.listRuns({
          jobId: job.job_id,
          startTimeFrom: job.last_seen_run_start ?? undefined,
          completedOnly: true,
        })) {
          await enqueueCollect(workspaceId, run.run_id);
        }
      }
    },
  };

  return {
    store,
    connect,
    applier,
    onboarding,
    discover,
    exportRecommendation,
    handlers,
    enqueueCollect,
    applyRequested,
    onRecommendationReady,
    scheduleReconciliation,
    async checkAccess(workspaceId: string, logDestination?: string) {
      const { client, s3 } = await connect(workspaceId);
      const link = await store.workspaceLink(workspaceId);
      if (logDestination) await store.saveWorkspaceLink(workspaceId, { logDestination });
      return checkWorkspaceAccess(client, {
        logDestination: logDestination ?? link?.log_destination ?? undefined,
        ...(s3 && { checkS3: (destination: string) => probeS3LogDestination(s3, destination) }),
      });
    },
  };
}

export type DatabricksIntegration = ReturnType<typeof createDatabricksIntegration>;
