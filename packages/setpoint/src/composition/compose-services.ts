import { EventEmitter } from 'node:events';
import path from 'node:path';
import { S3Client } from '@setpoint/foundation/s3';
import type { SetpointConfig } from '../config/schema.js';
import type { Logger } from '../logging/logger.js';
import { createPipeline } from '../pipeline/pipeline.js';
import type { PipelinePlatforms } from '../pipeline/pipeline-context.js';
import type {
  PlatformCore,
  PlatformPlugin,
  PlatformRuntime,
  ProjectClusterReportParser,
} from '../platform-api/platform.js';
import { PlatformRegistry } from '../platform-api/platform-registry.js';
import { shippedCatalog } from '../pricing/catalog/shipped-catalog.js';
import { loadImportedLayers, openPriceCatalog } from '../pricing/catalog-store.js';
import {
  coreJobKinds,
  type JobAttempt,
  type JobHandlers,
  type JobKind,
  type JobQueue,
  type RetryPolicy,
} from '../queue/job-queue.js';
import { PgBossJobQueue } from '../queue/pg-boss-job-queue.js';
import { SqlJobQueue } from '../queue/sql-job-queue.js';
import { CredentialSigner } from '../security/credentials.js';
import { configuredMasterKeys, loadKeyMaterial, masterKeyLocation } from '../security/key-material.js';
import { createOutboundGuard } from '../security/outbound-guard.js';
import { SecretBox } from '../security/secret-box.js';
import { createAlertService } from '../service/alerts/alert-service.js';
import { applyJobKinds } from '../service/apply/apply-jobs.js';
import { createApplyService } from '../service/apply/apply-service.js';
import { createAuditService } from '../service/audit/audit-service.js';
import { createApiKeyService } from '../service/auth/api-key-service.js';
import { createOneTimeSignIn } from '../service/auth/one-time-sign-in.js';
import { createUserService } from '../service/auth/user-service.js';
import { createCodeHandoff } from '../service/code/code-handoff.js';
import { createProposalService } from '../service/code/proposal-service.js';
import { createSourceService } from '../service/code/source-service.js';
import { writerBehindCode } from '../service/code/writer-behind-code.js';
import { type ConnectionLimits, createConnectionService } from '../service/connections/connection-service.js';
import { createFormFactorService } from '../service/form-factor/form-factor-service.js';
import { createInsightsService } from '../service/insights/insights-service.js';
import { createParkedJobService } from '../service/jobs/parked-job-service.js';
import { createOrganizationSettingsService } from '../service/organization/organization-settings-service.js';
import { withDecisionRefresh } from '../service/projects/decision-refresh.js';
import { withOrganizationDefaults } from '../service/projects/organization-defaults.js';
import { createProjectService } from '../service/projects/project-service.js';
import type { RecommendationEvent } from '../service/recommendations/recommendation-events.js';
import { createRecommendationService } from '../service/recommendations/recommendation-service.js';
import type { Recommender } from '../service/recommender/recommender.js';
import { createRepositories } from '../service/repositories.js';
import { createEventLogFetcher } from '../service/runs/eventlog-fetcher.js';
import { EventLogProfiler } from '../service/runs/eventlog-profiler.js';
import { pruneEventLogs } from '../service/runs/eventlog-retention.js';
import type { RunCoster, RunProfiler } from '../service/runs/run-analysis.js';
import { pruneRuns } from '../service/runs/run-retention.js';
import { createRunService } from '../service/runs/run-service.js';
import { assertSecretsReadable, storedSecrets } from '../service/secrets/stored-secrets.js';
import { createWorkspaceService } from '../service/workspaces/workspace-service.js';
import type { BlobStore } from '../store/blobs/blob-store.js';
import { LocalBlobStore } from '../store/blobs/local-blob-store.js';
import { S3BlobStore } from '../store/blobs/s3-blob-store.js';
import type { StoreConnection } from '../store/open-database.js';
import { applyJobHandlers } from './apply-job-handlers.js';
import { createMetrics } from './metrics.js';
import { openStore } from './open-store.js';
import { legacyApplyJobKinds, registeredPlatforms } from './platforms.js';

export interface AnalysisPorts {
  profiler: RunProfiler;
  coster: RunCoster;
  recommender: Recommender;
}

export interface ComposeOptions {
  config: SetpointConfig;
  logger: Logger;
  /** Replace the event-log engine, and every platform's coster and recommender in the pipeline (tests). */
  analysis?: Partial<AnalysisPorts>;
  store?: StoreConnection;
  /** The platforms to run (default: every registered one). */
  platforms?: PlatformPlugin[];
  /** How long a connection's sign-in and check may take (tests shorten them). */
  connectionLimits?: Partial<ConnectionLimits>;
}

/**
 * The composition root shared by `serve` (API, optionally with workers) and `worker`: store, queue,
 * blobs, keys, the services by resource, every registered platform, and the pipeline, each given only
 * what it needs.
 */
export async function composeServices(options: ComposeOptions) {
  const { config, logger } = options;
  const plugins = new PlatformRegistry(options.platforms ?? registeredPlatforms());
  const store = options.store ?? (await openStore(config, plugins.entries));
  const keySources = {
    dataDir: config.dataDir,
    masterKey: config.masterKey,
    serverSecret: config.serverSecret,
  };
  const repositories = createRepositories(store.db);
  // before a key would be minted: a database restored without its master.key refuses to start
  try {
    assertSecretsReadable(
      await storedSecrets(repositories),
      configuredMasterKeys(keySources),
      masterKeyLocation(keySources),
    );
  } catch (error) {
    if (!options.store) await store.close();
    throw error;
  }
  const keys = loadKeyMaterial(keySources);
  const secretBox = new SecretBox(keys.masterKeys);
  const outbound = createOutboundGuard(config.outboundAllowList);
  const signer = new CredentialSigner(keys.serverSecret);
  const policy: RetryPolicy = {
    maxAttempts: config.jobMaxAttempts,
    retryDelaySeconds: config.jobRetryDelaySeconds,
    leaseSeconds: config.jobLeaseSeconds,
  };
  const jobKinds: JobKind[] = [
    ...coreJobKinds,
    ...applyJobKinds,
    ...legacyApplyJobKinds,
    ...plugins.entries.flatMap((plugin) => plugin.jobKinds as readonly JobKind[]),
  ];
  const queue: JobQueue =
    store.dialect === 'postgres' && config.databaseUrl
      ? new PgBossJobQueue(config.databaseUrl, policy, jobKinds, undefined, config.workerQueueLossSeconds)
      : new SqlJobQueue(store.db, store.dialect, policy);
  const s3 =
    config.s3AccessKeyId && config.s3SecretAccessKey
      ? new S3Client({
          region: config.s3Region,
          endpoint: config.s3Endpoint,
          credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey },
          idleTimeoutMs: config.s3IdleTimeoutSeconds * 1000,
        })
      : undefined;
  const blobs: BlobStore = config.blobStoreUrl
    ? s3BlobStore(config.blobStoreUrl, s3)
    : new LocalBlobStore(path.join(config.dataDir, 'blobs'));
  const scratchDir = path.join(config.dataDir, 'tmp');
  const events = new EventEmitter();
  const metrics = createMetrics(queue);
  const catalog = openPriceCatalog(config.dataDir);
  // Newest import first: the recommender takes the first entry it finds for a node type.
  const nodeTypes = [...loadImportedLayers(config.dataDir).reverse(), shippedCatalog].flatMap(
    (layer) => layer.instanceTypes,
  );

  const alerts = createAlertService({
    alerts: repositories.alerts,
    secretBox,
    outboundPolicy: { allow: outbound.allowList },
    logger,
    retryBaseMs: config.alertRetryBaseSeconds * 1000,
    audit: repositories.audit,
  });
  const organizationSettings = createOrganizationSettingsService({
    store: repositories.organizationSettings,
  });
  const recommendations = createRecommendationService({
    recommendations: repositories.recommendations,
    projects: repositories.projects,
    runs: repositories.runs,
    queue,
    events: { publish: (event: RecommendationEvent) => void events.emit(event.type, event) },
  });
  const projects = withDecisionRefresh(
    withOrganizationDefaults(createProjectService({ ...repositories, blobs }), organizationSettings),
    recommendations,
  );
  const workspaces = createWorkspaceService({
    workspaces: repositories.workspaces,
    secretBox,
    outbound,
  });
  const users = createUserService({ users: repositories.users });
  const audit = createAuditService({ audit: repositories.audit });
  const apiKeys = createApiKeyService({
    keys: repositories.apiKeys,
    signer,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
  });
  const runs = createRunService({
    runs: repositories.runs,
    projects: repositories.projects,
    blobs,
    queue,
    outboundAllowList: outbound.allowList,
  });
  const insights = createInsightsService({
    runs: repositories.runs,
    projects,
    workspaces,
    organizationSettings,
  });
  const parkedJobs = createParkedJobService({
    parked: repositories.parkedJobs,
    runs: repositories.runs,
    recommendations: repositories.recommendations,
    logger,
  });

  // the platforms' writers, once their runtimes exist (they are given the apply service below)
  let writers: PlatformRegistry<PlatformRuntime> | undefined;
  const writersOf = () => {
    if (!writers) throw new Error('the platforms are not created yet');
    return writers;
  };
  const platformOfProject = async (projectId: string) =>
    writersOf().forWorkspace(await workspaces.facts((await projects.get(projectId)).workspaceId));
  const codeOfProject = async (projectId: string) => (await platformOfProject(projectId)).code ?? null;
  const formFactor = createFormFactorService({
    projects,
    audit,
    adviserOf: async (projectId) => (await platformOfProject(projectId)).formFactor,
  });
  const sources = createSourceService({
    sources: repositories.sources,
    secretBox,
    outbound,
    declared: async (projectId) => (await codeOfProject(projectId))?.declaredSource(projectId) ?? null,
  });
  let publicUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;
  const proposals = createProposalService({
    projects,
    recommendations,
    runs,
    sources,
    proposals: repositories.proposals,
    code: codeOfProject,
    fetch: (url, init) => outbound.fetch(url, init),
    scratchDir,
    publicUrl: () => publicUrl,
    recordApplied: (entry) => applies.recordDeployed(entry),
  });
  const applies = createApplyService({
    changes: repositories.appliedChanges,
    intents: repositories.applyIntents,
    approvals: repositories.approvals,
    projects,
    recommendations,
    audit,
    queue,
    logger,
    // a job whose configuration lives in code is never written through the platform's API
    writerOf: async (project) =>
      writerBehindCode(
        writersOf().forWorkspace(await workspaces.facts(project.workspaceId)).writer,
        sources.view,
      ),
    writerNamed: (platform) => writersOf().named(platform)?.writer,
    maxAutoChangesPerWeek: config.maxAutoChangesPerWeek,
    slaRevertFactor: config.slaRevertFactor,
    leaseSeconds: config.jobLeaseSeconds,
    // a job whose configuration lives in code gets its change proposed there
    code: createCodeHandoff({ sourceOf: sources.view, projects, proposals, audit, logger }),
  });

  const core: PlatformCore = {
    db: store.db,
    config,
    queue,
    projects,
    workspaces,
    runs,
    recommendations,
    catalog,
    nodeTypes,
    scratchDir,
    logger,
    outbound,
    publicUrl: () => publicUrl,
    audit,
    applies,
  };
  const platforms = new PlatformRegistry<PlatformRuntime>(
    plugins.entries.map((plugin) => plugin.create(core)),
  );
  writers = platforms;
  const connections = createConnectionService({
    workspaces,
    connectors: {
      names: platforms.entries.map((platform) => platform.name),
      of: (platform) => platforms.named(platform)?.connector,
    },
    limits: options.connectionLimits,
  });

  // the pipeline reaches a platform through its runtime only; tests may replace the engines it runs
  const engines = options.analysis ?? {};
  const pipelinePlatforms: PipelinePlatforms = {
    forWorkspace(workspace) {
      const runtime = platforms.forWorkspace(workspace);
      return {
        runs: runtime.runs,
        coster: engines.coster ?? runtime.coster,
        recommender: engines.recommender ?? runtime.recommender,
      };
    },
  };
  const parseClusterReport: ProjectClusterReportParser = async (projectId, raw) => {
    if (raw === null || raw === undefined) return null;
    const project = await projects.get(projectId);
    return platforms.forWorkspace(await workspaces.facts(project.workspaceId)).runs.parseClusterReport(raw);
  };

  const pipeline = createPipeline({
    runs: repositories.runs,
    maintenancePasses: repositories.maintenancePasses,
    learningSummaries: repositories.learningSummaries,
    projectRecords: repositories.projects,
    recommendationRecords: repositories.recommendations,
    recommendations,
    workspaces,
    platforms: pipelinePlatforms,
    blobs,
    fetcher: createEventLogFetcher({
      fetch: (url) => outbound.fetch(url),
      s3,
      maxBytes: config.maxUploadBytes,
    }),
    profiler: engines.profiler ?? new EventLogProfiler({ maxDecompressedBytes: config.maxDecompressedBytes }),
    queue,
    scratchDir,
    maxEventLogBytes: config.maxUploadBytes,
    recommendationWindowRuns: config.recommendationWindowRuns,
    runClockToleranceMs: config.runClockToleranceHours * 3_600_000,
    logger,
    onIngestedBytes: (bytes) => metrics.ingestedBytes.inc(bytes),
    onRecommendationReady: async (projectId, recommendationId) => {
      // a merged proposal the job now runs is recorded as applied before the next change is decided
      await proposals
        .refresh(projectId)
        .catch((error: unknown) => logger.warn({ err: error, projectId }, 'could not follow the proposals'));
      await applies.recommendationReady(projectId, recommendationId);
    },
  });

  let workersStarted = false;
  const timers: NodeJS.Timeout[] = [];
  const attemptListeners = new Set<(attempt: JobAttempt) => void>();
  return {
    config,
    logger,
    store,
    queue,
    blobs,
    secretBox,
    signer,
    events,
    metrics,
    scratchDir,
    projects,
    workspaces,
    connections,
    apiKeys,
    organizationSettings,
    alerts,
    users,
    audit,
    /** `setpoint demo` issues its one-time link that signs the browser in as the demo admin. */
    demoSignIn: createOneTimeSignIn(),
    runs,
    recommendations,
    applies,
    insights,
    parkedJobs,
    sources,
    proposals,
    formFactor,
    pipeline,
    platforms,
    parseClusterReport,
    /**
     * Calls `listener` with every job attempt this process's workers finish (where a run's time went: the
     * Job Bank's latency breakdown); returns the function that stops it.
     */
    observeJobAttempts(listener: (attempt: JobAttempt) => void): () => void {
      attemptListeners.add(listener);
      return () => attemptListeners.delete(listener);
    },
    /** Where platforms should send webhooks, once the listening address is known. */
    setPublicUrl(url: string): void {
      if (!config.publicUrl) publicUrl = url;
    },
    /** `onQueueLost`: the workers lost their queue for good (see `WorkerOptions.onQueueLost`). */
    async startWorkers(onQueueLost?: (reason: string) => void): Promise<void> {
      workersStarted = true;
      // once: runs profiled before model profiles were stored get theirs before any recommendation runs
      await pipeline.backfillModelProfiles();
      const stalledMs = 2 * config.jobLeaseSeconds * 1000;
      const resume = () =>
        void pipeline
          .resumeStalledRuns(stalledMs)
          .catch((error: unknown) => logger.error({ err: error }, 'resuming stalled runs failed'));
      timers.push(setInterval(resume, stalledMs));
      resume();
      // writes whose process stopped mid-way are found once their lease runs out, not at the project's next apply
      const settleWrites = () =>
        void applies
          .settleStoppedWrites()
          .catch((error: unknown) => logger.error({ err: error }, 'settling stopped writes failed'));
      timers.push(setInterval(settleWrites, config.jobLeaseSeconds * 1000));
      settleWrites();
      // once per start: runs costed before the overhead split get it (a no-op once none is left)
      void pipeline
        .backfillRunOverhead()
        .catch((error: unknown) => logger.error({ err: error }, 'adding overhead to earlier runs failed'));
      const prune = () =>
        void pruneEventLogs(
          { runs: repositories.runs, blobs },
          { days: config.eventLogRetentionDays, runsPerProject: config.eventLogRetentionRuns },
        ).catch((error: unknown) => logger.error({ err: error }, 'pruning event logs failed'));
      timers.push(setInterval(prune, config.eventLogPruneIntervalSeconds * 1000));
      const pruneOldRuns = async () =>
        pruneRuns(
          {
            retention: repositories.runRetention,
            runs: repositories.runs,
            learningSummaries: repositories.learningSummaries,
            blobs,
            audit: repositories.audit,
            logger,
            windowRuns: config.recommendationWindowRuns,
          },
          (await organizationSettings.get()).settings.run_retention_days,
        );
      timers.push(
        setInterval(
          () =>
            void pruneOldRuns().catch((error: unknown) =>
              logger.error({ err: error }, 'run retention failed'),
            ),
          config.eventLogPruneIntervalSeconds * 1000,
        ),
      );
      const evaluateAlerts = () =>
        void alerts
          .evaluate()
          .catch((error: unknown) => logger.error({ err: error }, 'evaluating alert rules failed'));
      timers.push(setInterval(evaluateAlerts, config.alertIntervalSeconds * 1000));
      if (config.orphanSweepIntervalSeconds > 0) {
        const sweep = () =>
          void pipeline
            .sweepOrphans(config.orphanMinAgeSeconds * 1000)
            .catch((error: unknown) => logger.error({ err: error }, 'orphan sweep failed'));
        timers.push(setInterval(sweep, config.orphanSweepIntervalSeconds * 1000));
        sweep();
      }
      for (const schedule of platforms.entries.flatMap((platform) => platform.schedules)) {
        const everyMs = schedule.everySeconds * 1000;
        timers.push(
          setInterval(() => {
            void schedule
              .run(String(Math.floor(Date.now() / everyMs)))
              .catch((error: unknown) => logger.error({ err: error }, `${schedule.name} failed`));
          }, everyMs),
        );
      }
      for (const timer of timers) timer.unref();
      const handlers: JobHandlers = Object.assign(
        {},
        pipeline.handlers,
        applyJobHandlers(applies),
        ...platforms.entries.map((platform) => platform.handlers),
      );
      await queue.startWorkers(handlers, {
        concurrency: config.workerConcurrency,
        onParked: (job) => parkedJobs.park(job),
        onAttempt: (attempt) => {
          const { kind, outcome } = attempt;
          metrics.jobDuration.observe({ kind, outcome }, (attempt.finishedAt - attempt.startedAt) / 1000);
          for (const listener of attemptListeners) listener(attempt);
        },
        onConnectionLost: (message) =>
          logger.warn({ error: message }, 'queue connection dropped while settling a job; it will run again'),
        ...(onQueueLost ? { onQueueLost } : {}),
      });
    },
    /** Stops the workers (waiting for running jobs), then the queue and the database. */
    async close(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      if (workersStarted || queue.name === 'pg-boss') await queue.stop();
      if (!options.store) await store.close();
    },
  };
}

function s3BlobStore(url: string, s3: S3Client | undefined): BlobStore {
  if (!s3) throw new Error('blobStoreUrl is s3:// but AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are not set');
  const parsed = new URL(url);
  return new S3BlobStore(s3, {
    bucket: parsed.hostname,
    prefix: parsed.pathname,
  });
}

export type Services = Awaited<ReturnType<typeof composeServices>>;
