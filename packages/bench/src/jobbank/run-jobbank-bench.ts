import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '@setpoint/foundation/statistics';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import type { ImportedProjectSettings } from 'setpoint/demo/loop-records';
import type { RoundDelivery } from 'setpoint/demo/round-delivery';
import { addValidityCounts, type ValidityCounts, validityCounts } from 'setpoint/demo/validity-counts';
import { hasBillingEstimate } from 'setpoint/platforms/databricks/billing/billed-cost';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import type { JobAttempt } from 'setpoint/queue/job-queue';
import type { RecommendationRecord } from 'setpoint/service/recommendations/recommendation-records';
import { type JobBankMetrics, type JobBankOperations, jobBankMetrics } from './jobbank-metrics.js';
import type { JobBankProject, LastDecision } from './jobbank-project.js';
import { type LatencyRun, latencyBreakdown } from './latency-breakdown.js';

import {
  type ServerlessMetrics,
  type ServerlessProjectRecord,
  serverlessMetrics,
} from './serverless-metrics.js';

export interface JobBankOptions {
  runs: number;
  seeds: number;
  /** First seed; seeds are firstSeed … firstSeed + seeds − 1. */
  firstSeed?: number;
  /** System tables only: no cluster log delivery, runs profiled from the node timeline. */
  agentless?: boolean;
  /** Settings every imported project is given (preference, learning-run miss budget; else the defaults). */
  projectSettings?: ImportedProjectSettings;
  /** Also an EMR account with recurring workloads on transient clusters, imported like the jobs. */
  emr?: boolean;
  /** Also the Job Bank's serverless jobs (performance-mode advice), reported on their own (`serverless`). */
  serverless?: boolean;
  /**
   * How each round delivers its runs: `burst` (default; every job's run at the round's instant) or
   * `one-at-a-time` (each run started once the previous one's recommendation is stored and the queue is
   * empty: the latency of a run alone).
   */
  delivery?: RoundDelivery;
  log?: (line: string) => void;
}

export interface BillingFigures {
  /** Runs whose DBU cost was both estimated and billed. */
  runs: number;
  /** median |estimated − billed| / billed DBU cost per run. */
  medianAbsError: number | null;
  /** The same over the runs estimated with a launch delay learned from earlier bills. */
  learned: { runs: number; medianAbsError: number | null };
  /** The launch delay each seed's workspace learned by the end (null: none used). */
  launchDelaysMs: Array<number | null>;
  restatedRuns: number;
  /** Statements and wall time to read one run through system tables (nodes, cluster and timeline, bill). */
  collection: { statements: number; wallMs: number } | null;
}

/** The workspace reads system tables through its first SQL warehouse, found as a client would find it. */
async function useSystemTables(loop: ClosedLoop): Promise<void> {
  const integration = databricksIntegrationOf(loop.server.services);
  const { transport } = await integration.connect(loop.workspaceId);
  const listed = (await transport.json({ method: 'GET', path: '/api/2.0/sql/warehouses' })) as {
    warehouses?: Array<{ id: string }>;
  };
  const warehouseId = listed.warehouses?.[0]?.id;
  if (!warehouseId) throw new Error('the workspace has no SQL warehouse');
  await integration.store.saveWorkspaceLink(loop.workspaceId, { sqlWarehouseId: warehouseId });
}

/** Past the emulator's default billing lag (2 h) and restatement delay (6 h). */
const settleBillingMs = 12 * 3_600_000;

/**
 * Between rounds, as for a daily job: the emulated clock moves past the billing lag and every
 * restatement, and the round's estimates are reconciled with system.billing.usage (which is also when
 * the workspace's launch delay is learned again).
 */
async function settleBilling(loop: ClosedLoop, settleMs: number): Promise<void> {
  loop.emulator.context.clock.advance(settleMs);
  await databricksIntegrationOf(loop.server.services).reconcileBilling(loop.workspaceId);
}

/** After the rounds: each run's estimate against its bill, and the collection of one run timed. */
async function billingFigures(
  loop: ClosedLoop,
  settleMs: number,
): Promise<
  Omit<BillingFigures, 'launchDelaysMs'> & {
    errors: number[];
    learnedErrors: number[];
    launchDelayMs: number | null;
  }
> {
  const integration = databricksIntegrationOf(loop.server.services);
  await settleBilling(loop, settleMs);
  // a serverless run whose cost was pending had no estimate to compare with its bill
  const rows = (await integration.store.allBilling()).filter(
    (row) => row.billed_dbu_usd !== null && row.billed_dbu_usd > 0 && hasBillingEstimate(row),
  );
  const errorOf = (row: (typeof rows)[number]) =>
    Math.abs(row.estimated_dbu_usd - (row.billed_dbu_usd ?? 0)) / (row.billed_dbu_usd ?? 1);
  const errors = rows.map(errorOf);
  const learnedErrors = rows.filter((row) => row.launch_delay_ms !== null).map(errorOf);
  const sample = rows[0];
  let collection: BillingFigures['collection'] = null;
  const reader = await integration.systemTablesFor(loop.workspaceId);
  if (sample && reader) {
    const before = reader.statementsSent;
    const started = performance.now();
    await reader.nodeUsage(sample.cluster_id);
    await reader.clusterAndTimeline(sample.cluster_id, sample.databricks_run_id);
    await reader.billing(sample.databricks_run_id, sample.cluster_id);
    collection = { statements: reader.statementsSent - before, wallMs: performance.now() - started };
  }
  return {
    runs: rows.length,
    medianAbsError: median(errors),
    errors,
    learned: { runs: learnedErrors.length, medianAbsError: median(learnedErrors) },
    learnedErrors,
    launchDelayMs: (await integration.store.launchDelay(loop.workspaceId))?.launch_delay_ms ?? null,
    restatedRuns: rows.filter((row) => row.restated === 1).length,
    collection,
  };
}

export interface JobBankResult {
  /** Collected through system tables only (no event logs). */
  agentless: boolean;
  /** EMR workloads ran beside the Databricks jobs (`metrics.perPlatform` separates them). */
  emr: boolean;
  /** How each round delivered its runs (`one-at-a-time`: every latency is a run alone's). */
  delivery: RoundDelivery;
  runsPerJob: number;
  seeds: number[];
  /** The settings every project was imported with besides auto-apply ({} = the project defaults). */
  projectSettings: ImportedProjectSettings;
  jobs: number;
  wallSeconds: number;
  metrics: JobBankMetrics;
  /** DBU cost estimated vs billed (system tables), over every seed; collection timed on the last. */
  billing: BillingFigures;
  /** Writes a platform would refuse (goal: none), over every seed. */
  validity: ValidityCounts;
  /** The serverless jobs' figures (with `serverless`; they are not in `metrics`), else null. */
  serverless: ServerlessMetrics | null;
}

/** Each serverless project's runs as the service shows them (mode, cost or pending) and its mode writes. */
async function observeServerlessProjects(loop: ClosedLoop, seed: number): Promise<ServerlessProjectRecord[]> {
  const { services } = loop.server;
  const integration = databricksIntegrationOf(services);
  const records: ServerlessProjectRecord[] = [];
  for (const job of loop.jobs) {
    if (job.platform !== 'databricks' || !job.serverless) continue;
    for (const projectId of job.projectIds) {
      const project = await services.projects.get(projectId);
      const runs = (await services.runs.list(projectId, { limit: 500, offset: 0 })).items.reverse();
      const billing = new Map(
        (await integration.store.billingOfRuns(runs.map((run) => run.id))).map((row) => [row.run_id, row]),
      );
      records.push({
        job: job.name,
        seed,
        slaMinutes: project.settings.slaMinutes,
        runs: runs.map((run) => {
          const row = billing.get(run.id);
          const target = run.clusterConfig?.performance_target;
          return {
            performanceTarget: typeof target === 'string' ? target : null,
            status: run.status,
            runtimeMinutes: run.startedAt && run.endedAt ? (run.endedAt - run.startedAt) / 60_000 : null,
            costUsd: run.cost?.totalUsd ?? null,
            costPending: run.costPending !== null,
            wasPending: row !== undefined && !hasBillingEstimate(row),
          };
        }),
        modeWrites: (await services.applies.history(projectId)).filter((entry) => entry.kind !== 'baseline')
          .length,
      });
    }
  }
  return records;
}

async function observeProjects(loop: ClosedLoop, seed: number): Promise<JobBankProject[]> {
  const { services } = loop.server;
  const projects: JobBankProject[] = [];
  for (const job of loop.jobs) {
    // serverless jobs have no cluster to size: their advice is measured on its own
    if (job.platform === 'databricks' && job.serverless) continue;
    for (const projectId of job.projectIds) {
      const project = await services.projects.get(projectId);
      const predictedRuntimeMinutes = new Map<string, number>();
      const changeRecommendationIds = new Set<string>();
      const recommendations = await allRecommendations(loop, projectId);
      for (const recommendation of recommendations) {
        const mid = recommendation.prediction?.runtimeMinutes.mid;
        if (mid) predictedRuntimeMinutes.set(recommendation.id, mid);
        if (recommendation.decision?.action === 'change') changeRecommendationIds.add(recommendation.id);
      }
      projects.push({
        platform: job.platform,
        job: job.name,
        project: project.name,
        seed,
        slaMinutes: project.settings.slaMinutes,
        phase: project.phase,
        runs: await loop.runsOf(projectId),
        predictedRuntimeMinutes,
        changeRecommendationIds,
        lastDecision: lastDecisionOf(recommendations),
      });
    }
  }
  return projects;
}

/** The newest successful recommendation's decision (the list is newest first), in the API's words. */
function lastDecisionOf(recommendations: RecommendationRecord[]): LastDecision | null {
  const decision = recommendations.find((recommendation) => recommendation.state === 'SUCCESS')?.decision;
  if (!decision) return null;
  return {
    action: decision.action,
    change: decision.change,
    probabilityMeetsSla: decision.sla.kind === 'project' ? decision.sla.probabilityMeets : null,
    learning: decision.learning?.active ?? false,
    notes: decision.notes,
  };
}

async function allRecommendations(loop: ClosedLoop, projectId: string) {
  return (await loop.server.services.recommendations.list(projectId, { limit: 500, offset: 0 })).items;
}

/**
 * Webhook arrival → the recommendation computed from that run, read back through Setpoint's services, and
 * where that time went (the workers' timed attempts).
 */
async function observeOperations(
  loop: ClosedLoop,
  attempts: readonly JobAttempt[],
): Promise<JobBankOperations> {
  const { services } = loop.server;
  const databricks = databricksIntegrationOf(services);
  const receivedAt = new Map(
    (await databricks.store.webhookDeliveries(['jobs.on_success', 'jobs.on_failure'])).map((event) => [
      event.eventKey.split(':').at(-1) ?? '',
      event.receivedAt,
    ]),
  );
  const webhookToRecommendationMs: number[] = [];
  const latencyRuns: LatencyRun[] = [];
  let incompleteRuns = 0;
  let reverts = 0;
  for (const projectId of loop.jobs.flatMap((job) => job.projectIds)) {
    const runs = (await services.runs.list(projectId, { limit: 500, offset: 0 })).items;
    incompleteRuns += runs.filter((run) => run.status === 'INCOMPLETE').length;
    const externalIdOf = new Map(runs.map((run) => [run.id, run.externalRunId]));
    for (const recommendation of await allRecommendations(loop, projectId)) {
      if (recommendation.state !== 'SUCCESS' || !recommendation.basedOnRunId) continue;
      const externalRunId = externalIdOf.get(recommendation.basedOnRunId) ?? '';
      const received = receivedAt.get(externalRunId);
      if (received === undefined) continue;
      webhookToRecommendationMs.push(recommendation.updatedAt - received);
      latencyRuns.push({
        id: recommendation.basedOnRunId,
        externalRunId,
        receivedAt: received,
        recommendationId: recommendation.id,
        readyAt: recommendation.updatedAt,
      });
    }
    reverts += (await services.applies.history(projectId)).filter(
      (change) => change.kind === 'revert',
    ).length;
  }
  return {
    webhookToRecommendationMs,
    latency: latencyBreakdown(latencyRuns, attempts),
    collectionFailures:
      (await services.parkedJobs.count('databricks.collect')) +
      (await services.parkedJobs.count('emr.collect')),
    incompleteRuns,
    reverts,
  };
}

/**
 * The Job Bank through the real service path: for each seed, every emulator job starts from a random
 * cold-start cluster, is imported with auto-apply on, and runs `runs` times; webhooks, collection,
 * parsing, costing, the optimizer and apply all happen as they would against a workspace.
 */
export async function runJobBankBench(options: JobBankOptions): Promise<JobBankResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const firstSeed = options.firstSeed ?? 1;
  const seeds = Array.from({ length: options.seeds }, (_, index) => firstSeed + index);
  const projects: JobBankProject[] = [];
  const serverlessProjects: ServerlessProjectRecord[] = [];
  const operations: JobBankOperations = {
    webhookToRecommendationMs: [],
    latency: [],
    collectionFailures: 0,
    incompleteRuns: 0,
    reverts: 0,
  };
  let jobs = 0;
  const billing: BillingFigures = {
    runs: 0,
    medianAbsError: null,
    learned: { runs: 0, medianAbsError: null },
    launchDelaysMs: [],
    restatedRuns: 0,
    collection: null,
  };
  let validity: ValidityCounts = { refusedByPlatform: 0, refusedBySetpoint: 0, examples: [] };
  const billingErrors: number[] = [];
  const learnedErrors: number[] = [];
  for (const seed of seeds) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-jobbank-'));
    const loop = await startClosedLoop({
      port: 0,
      dataDir,
      seed,
      randomColdStart: true,
      agentless: options.agentless ?? false,
      emr: options.emr ?? false,
      serverless: options.serverless ?? false,
      ...(options.projectSettings ? { projectSettings: options.projectSettings } : {}),
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
    const attempts: JobAttempt[] = [];
    const stopObserving = loop.server.services.observeJobAttempts((attempt) => attempts.push(attempt));
    try {
      jobs = loop.jobs.length;
      if (!options.agentless) await useSystemTables(loop);
      for (let round = 1; round <= options.runs; round += 1) {
        await loop.round(options.delivery ?? 'burst');
        await settleBilling(loop, settleBillingMs);
        log(`seed ${seed}: round ${round}/${options.runs} done`);
      }
      projects.push(...(await observeProjects(loop, seed)));
      if (options.serverless) serverlessProjects.push(...(await observeServerlessProjects(loop, seed)));
      const observed = await observeOperations(loop, attempts);
      operations.webhookToRecommendationMs.push(...observed.webhookToRecommendationMs);
      operations.latency.push(...observed.latency);
      operations.collectionFailures += observed.collectionFailures;
      operations.incompleteRuns += observed.incompleteRuns;
      operations.reverts += observed.reverts;
      validity = addValidityCounts(validity, await validityCounts(loop));
      const figures = await billingFigures(loop, settleBillingMs);
      billing.runs += figures.runs;
      billing.restatedRuns += figures.restatedRuns;
      billingErrors.push(...figures.errors);
      learnedErrors.push(...figures.learnedErrors);
      billing.launchDelaysMs.push(figures.launchDelayMs);
      billing.collection = figures.collection ?? billing.collection;
    } finally {
      stopObserving();
      await loop.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    agentless: options.agentless ?? false,
    emr: options.emr ?? false,
    delivery: options.delivery ?? 'burst',
    runsPerJob: options.runs,
    seeds,
    projectSettings: options.projectSettings ?? {},
    jobs,
    wallSeconds: (performance.now() - started) / 1000,
    metrics: jobBankMetrics(projects, operations),
    validity,
    serverless: options.serverless ? serverlessMetrics(serverlessProjects) : null,
    billing: {
      ...billing,
      medianAbsError: median(billingErrors),
      learned: { runs: learnedErrors.length, medianAbsError: median(learnedErrors) },
    },
  };
}
