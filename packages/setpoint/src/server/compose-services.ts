import { EventEmitter } from 'node:events';
import path from 'node:path';
import { S3Client } from '@setpoint/foundation/s3';
import { Agent } from 'undici';
import type { SetpointConfig } from '../config/schema.js';
import { createCostModel } from '../cost/cost-model.js';
import type { Logger } from '../logging/logger.js';
import { createOrganizationSettingsService } from '../organization/organization-settings-service.js';
import { createOrganizationSettingsStore } from '../organization/organization-settings-store.js';
import { withOrganizationDefaults } from '../organization/project-defaults.js';
import { createDatabricksIntegration } from '../platforms/databricks/integration/databricks-integration.js';
import { openPriceCatalog } from '../pricing/catalog-store.js';
import { createApiKeyService } from '../projects/api-key-service.js';
import { createEventLogFetcher } from '../projects/eventlog-fetcher.js';
import { createPipeline } from '../projects/pipeline.js';
import type { DomainEvent, Recommender, RunCoster, RunProfiler } from '../projects/ports.js';
import { createProjectService } from '../projects/project-service.js';
import { createRecommendationService } from '../projects/recommendation-service.js';
import { createRunService } from '../projects/run-service.js';
import { createWorkspaceService } from '../projects/workspace-service.js';
import type { JobQueue, RetryPolicy } from '../queue/job-queue.js';
import { PgBossJobQueue } from '../queue/pg-boss-job-queue.js';
import { SqlJobQueue } from '../queue/sql-job-queue.js';
import { CredentialSigner } from '../security/credentials.js';
import { loadKeyMaterial } from '../security/key-material.js';
import { SecretBox } from '../security/secret-box.js';
import { publicOnlyAgent } from '../security/ssrf-guard.js';
import type { BlobStore } from '../store/blobs/blob-store.js';
import { LocalBlobStore } from '../store/blobs/local-blob-store.js';
import { S3BlobStore } from '../store/blobs/s3-blob-store.js';
import { openDatabase, type StoreConnection } from '../store/open-database.js';
import { createUserService } from '../users/user-service.js';
import { defaultAnalysisPorts } from './analysis-ports.js';
import { createMetrics } from './metrics.js';

export interface AnalysisPorts {
  profiler: RunProfiler;
  coster: RunCoster;
  recommender: Recommender;
}

export interface ComposeOptions {
  config: SetpointConfig;
  logger: Logger;
  /** Replace the event-log, cost and recommendation engines (tests). */
  analysis?: Partial<AnalysisPorts>;
  store?: StoreConnection;
}

/**
 * The composition root shared by `serve` (API, optionally with workers) and `worker`: store, queue,
 * blobs, keys, domain services and the pipeline, each given only what it needs.
 */
export async function composeServices(options: ComposeOptions) {
  const { config, logger } = options;
  const store =
    options.store ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const keys = loadKeyMaterial({
    dataDir: config.dataDir,
    masterKey: config.masterKey,
    serverSecret: config.serverSecret,
  });
  const secretBox = new SecretBox(keys.masterKeys);
  const signer = new CredentialSigner(keys.serverSecret);
  const policy: RetryPolicy = {
    maxAttempts: config.jobMaxAttempts,
    retryDelaySeconds: config.jobRetryDelaySeconds,
    leaseSeconds: config.jobLeaseSeconds,
  };
  const queue: JobQueue =
    store.dialect === 'postgres' && config.databaseUrl
      ? new PgBossJobQueue(config.databaseUrl, policy)
      : new SqlJobQueue(store.db, store.dialect, policy);
  const s3 =
    config.s3AccessKeyId && config.s3SecretAccessKey
      ? new S3Client({
          region: config.s3Region,
          endpoint: config.s3Endpoint,
          credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey },
        })
      : undefined;
  const blobs: BlobStore = config.blobStoreUrl
    ? s3BlobStore(config.blobStoreUrl, s3)
    : new LocalBlobStore(path.join(config.dataDir, 'blobs'));
  const scratchDir = path.join(config.dataDir, 'tmp');
  const events = new EventEmitter();
  const eventPublisher = { publish: (event: DomainEvent) => void events.emit(event.type, event) };
  const metrics = createMetrics(queue);
  const analysis: AnalysisPorts = { ...(await defaultAnalysisPorts(config)), ...options.analysis };

  const db = store.db;
  const organizationSettings = createOrganizationSettingsService({
    store: createOrganizationSettingsStore(db),
  });
  const projects = withOrganizationDefaults(createProjectService({ db }), organizationSettings);
  const workspaces = createWorkspaceService({ db, secretBox });
  const users = createUserService({ db });
  const apiKeys = createApiKeyService({ db, signer, accessTokenTtlSeconds: config.accessTokenTtlSeconds });
  const runs = createRunService({
    db,
    blobs,
    queue,
    allowPrivateEventLogUris: config.allowPrivateEventLogUris,
  });
  const recommendations = createRecommendationService({ db, queue, events: eventPublisher });
  let publicUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;
  const databricks = createDatabricksIntegration({
    db,
    queue,
    projects,
    workspaces,
    runs,
    recommendations,
    costModel: createCostModel(openPriceCatalog(config.dataDir)),
    scratchDir,
    logger,
    options: {
      publicUrl: () => publicUrl,
      completenessPollMs: config.logCompletenessPollMs,
      maxIncompleteAttempts: config.logMaxIncompleteAttempts,
      slaRevertFactor: config.slaRevertFactor,
      maxAutoChangesPerWeek: config.maxAutoChangesPerWeek,
    },
  });
  events.on('recommendation.apply_requested', (event: DomainEvent) => {
    void projects
      .get(event.projectId)
      .then((project) =>
        project.workspaceId && project.jobId
          ? queue.enqueue(
              'databricks.apply',
              {
                projectId: event.projectId,
                recommendationId: event.recommendationId,
                actor: event.actor,
                kind: 'apply',
              },
              { idempotencyKey: `databricks.apply:${event.recommendationId}:${event.at}` },
            )
          : undefined,
      )
      .catch((error: unknown) =>
        logger.error({ err: error, projectId: event.projectId }, 'could not queue the apply'),
      );
  });
  const pipeline = createPipeline({
    db,
    blobs,
    fetcher: createEventLogFetcher({
      dispatcher: config.allowPrivateEventLogUris ? new Agent() : publicOnlyAgent(),
      s3,
      maxBytes: config.maxUploadBytes,
    }),
    ...analysis,
    projects,
    recommendations,
    queue,
    scratchDir,
    maxEventLogBytes: config.maxUploadBytes,
    logger,
    onIngestedBytes: (bytes) => metrics.ingestedBytes.inc(bytes),
    onRecommendationReady: (projectId, recommendationId) =>
      databricks.onRecommendationReady(projectId, recommendationId),
  });

  let workersStarted = false;
  let resumeTimer: NodeJS.Timeout | undefined;
  let reconcileTimer: NodeJS.Timeout | undefined;
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
    apiKeys,
    organizationSettings,
    users,
    /** Set by `setpoint demo`: a one-time link that signs the browser in as the demo admin. */
    demoLoginToken: undefined as string | undefined,
    runs,
    recommendations,
    pipeline,
    databricks,
    /** Where Databricks should send webhooks, once the listening address is known. */
    setPublicUrl(url: string): void {
      if (!config.publicUrl) publicUrl = url;
    },
    async startWorkers(): Promise<void> {
      workersStarted = true;
      const stalledMs = 2 * config.jobLeaseSeconds * 1000;
      const resume = () =>
        void pipeline
          .resumeStalledRuns(stalledMs)
          .catch((error: unknown) => logger.error({ err: error }, 'resuming stalled runs failed'));
      resumeTimer = setInterval(resume, stalledMs);
      resumeTimer.unref();
      resume();
      if (config.reconcileIntervalSeconds > 0) {
        reconcileTimer = setInterval(() => {
          const bucket = String(Math.floor(Date.now() / (config.reconcileIntervalSeconds * 1000)));
          void databricks
            .scheduleReconciliation(bucket)
            .catch((error: unknown) => logger.error({ err: error }, 'reconciliation failed'));
        }, config.reconcileIntervalSeconds * 1000);
        reconcileTimer.unref();
      }
      await queue.startWorkers(
        { ...pipeline.handlers, ...databricks.handlers },
        {
          concurrency: config.workerConcurrency,
          onParked: pipeline.onParked,
          onAttempt: (kind, outcome, seconds) => metrics.jobDuration.observe({ kind, outcome }, seconds),
        },
      );
    },
    /** Stops the workers (waiting for running jobs), then the queue and the database. */
    async close(): Promise<void> {
      if (resumeTimer) clearInterval(resumeTimer);
      if (reconcileTimer) clearInterval(reconcileTimer);
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
