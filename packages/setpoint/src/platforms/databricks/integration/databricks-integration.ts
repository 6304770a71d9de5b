import { isAppError } from '@setpoint/foundation/errors';
import type { Kysely } from 'kysely';
import type { CostModel } from '../../../cost/cost-model.js';
import type { Logger } from '../../../logging/logger.js';
import type { ProjectService } from '../../../projects/project-service.js';
import type { RecommendationService } from '../../../projects/recommendation-service.js';
import type { RunService } from '../../../projects/run-service.js';
import type { WorkspaceService } from '../../../projects/workspace-service.js';
import { type JobQueue, PermanentJobError } from '../../../queue/job-queue.js';
import type { Database } from '../../../store/database-schema.js';
import { checkWorkspaceAccess } from '../access-check.js';
import { probeS3LogDestination } from '../log-store-s3.js';
import type { TransportOptions } from '../transport.js';
import { createApplier } from './applier.js';
import { decideAutoApply } from './auto-apply-policy.js';
import { createCollector, NotReadyYet } from './collector.js';
import { createDiscovery } from './discovery.js';
import { createExportService } from './export-service.js';
import { createIntegrationStore } from './integration-store.js';
import { createOnboardingService } from './onboarding-service.js';
import { createWorkspaceConnector } from './workspace-connection.js';

export interface IntegrationOptions {
  /** Read when a webhook destination is created (the listening port may be known only then). */
  publicUrl: () => string;
  completenessPollMs: number;
  maxIncompleteAttempts: number;
  slaRevertFactor: number;
  maxAutoChangesPerWeek: number;
  transport?: Partial<Omit<TransportOptions, 'host' | 'token'>>;
}

export interface IntegrationDependencies {
  db: Kysely<Database>;
  queue: Pick<JobQueue, 'enqueue'>;
  projects: ProjectService;
  workspaces: WorkspaceService;
  runs: RunService;
  recommendations: RecommendationService;
  costModel: CostModel;
  scratchDir: string;
  logger: Logger;
  options: IntegrationOptions;
}

const weekMs = 7 * 86_400_000;

/** Everything Setpoint does with a Databricks workspace, wired from the service core's parts. */
export function createDatabricksIntegration(deps: IntegrationDependencies) {
  const store = createIntegrationStore(deps.db);
  const connect = createWorkspaceConnector({
    workspaces: deps.workspaces,
    transport: deps.options.transport,
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
    publicUrl: deps.options.publicUrl,
  });
  const collector = createCollector({
    connect,
    store,
    projects: deps.projects,
    runs: deps.runs,
    applier,
    scratchDir: deps.scratchDir,
    logger: deps.logger,
    completenessPollMs: deps.options.completenessPollMs,
    maxIncompleteAttempts: deps.options.maxIncompleteAttempts,
    slaRevertFactor: deps.options.slaRevertFactor,
  });
  const discover = createDiscovery({ connect, store, costModel: deps.costModel });
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
      maxChangesPerPeriod: deps.options.maxAutoChangesPerWeek,
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

  const handlers = {
    async 'databricks.collect'(
      {
        workspaceId,
        runId,
        projectId,
      }: { workspaceId: string; runId: string; projectId?: string | undefined },
      context: { attempt: number },
    ) {
      try {
        await collector.collect(workspaceId, runId, context.attempt, projectId);
      } catch (error) {
        if (error instanceof NotReadyYet)
          deps.logger.info({ workspaceId, runId, reason: error.message }, 'run not ready for collection');
        throw error;
      }
    },
    async 'databricks.apply'(payload: {
      projectId: string;
      recommendationId: string;
      actor: string;
      kind: 'apply' | 'auto-apply';
    }) {
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
    async 'databricks.reconcile'({ workspaceId }: { workspaceId: string }) {
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
