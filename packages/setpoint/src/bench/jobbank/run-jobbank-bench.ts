import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClosedLoop, startClosedLoop } from '../../demo/closed-loop-driver.js';
import { parseJsonColumn } from '../../projects/ids.js';
import type { Prediction } from '../../projects/ports.js';
import {
  type JobBankMetrics,
  type JobBankOperations,
  type JobBankProject,
  jobBankMetrics,
} from './jobbank-metrics.js';

export interface JobBankOptions {
  runs: number;
  seeds: number;
  /** First seed; seeds are firstSeed … firstSeed + seeds − 1. */
  firstSeed?: number;
  log?: (line: string) => void;
}

export interface JobBankResult {
  runsPerJob: number;
  seeds: number[];
  jobs: number;
  wallSeconds: number;
  metrics: JobBankMetrics;
}

async function observeProjects(loop: ClosedLoop, seed: number): Promise<JobBankProject[]> {
  const { services } = loop.server;
  const projects: JobBankProject[] = [];
  for (const job of loop.jobs) {
    for (const projectId of job.projectIds) {
      const project = await services.projects.get(projectId);
      const recommendations = await services.store.db
        .selectFrom('recommendations')
        .select(['id', 'prediction'])
        .where('project_id', '=', projectId)
        .execute();
      const predictedRuntimeMinutes = new Map<string, number>();
      for (const recommendation of recommendations) {
        const mid = parseJsonColumn<Prediction>(recommendation.prediction)?.runtimeMinutes.mid;
        if (mid) predictedRuntimeMinutes.set(recommendation.id, mid);
      }
      projects.push({
        job: job.name,
        project: project.name,
        seed,
        slaMinutes: project.settings.slaMinutes,
        phase: project.phase,
        runs: await loop.runsOf(projectId),
        predictedRuntimeMinutes,
      });
    }
  }
  return projects;
}

/** Webhook arrival → the recommendation computed from that run, read back from Setpoint's own tables. */
async function observeOperations(loop: ClosedLoop): Promise<JobBankOperations> {
  const { db } = loop.server.services.store;
  const webhooks = await db
    .selectFrom('databricks_webhook_events')
    .select(['event_key', 'received_at'])
    .where((eb) =>
      eb.or([eb('event_key', 'like', '%:jobs.on_success:%'), eb('event_key', 'like', '%:jobs.on_failure:%')]),
    )
    .execute();
  const receivedAt = new Map(
    webhooks.map((event) => [event.event_key.split(':').at(-1) ?? '', event.received_at]),
  );
  const ready = await db
    .selectFrom('recommendations')
    .innerJoin('runs', 'runs.id', 'recommendations.based_on_run_id')
    .select(['runs.external_run_id', 'recommendations.updated_at'])
    .where('recommendations.state', '=', 'SUCCESS')
    .execute();
  const webhookToRecommendationMs = ready.flatMap((row) => {
    const received = receivedAt.get(row.external_run_id);
    return received === undefined ? [] : [row.updated_at - received];
  });
  const count = async (query: Promise<{ count: number | string | bigint }>) => Number((await query).count);
  return {
    webhookToRecommendationMs,
    collectionFailures: await count(
      db
        .selectFrom('parked_jobs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('kind', '=', 'databricks.collect')
        .executeTakeFirstOrThrow(),
    ),
    incompleteRuns: await count(
      db
        .selectFrom('runs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'INCOMPLETE')
        .executeTakeFirstOrThrow(),
    ),
    reverts: await count(
      db
        .selectFrom('databricks_applied_configs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('kind', '=', 'revert')
        .executeTakeFirstOrThrow(),
    ),
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
  const operations: JobBankOperations = {
    webhookToRecommendationMs: [],
    collectionFailures: 0,
    incompleteRuns: 0,
    reverts: 0,
  };
  let jobs = 0;
  for (const seed of seeds) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-jobbank-'));
    const loop = await startClosedLoop({
      port: 0,
      dataDir,
      seed,
      randomColdStart: true,
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
    try {
      jobs = loop.jobs.length;
      for (let round = 1; round <= options.runs; round += 1) {
        await loop.round();
        log(`seed ${seed}: round ${round}/${options.runs} done`);
      }
      projects.push(...(await observeProjects(loop, seed)));
      const observed = await observeOperations(loop);
      operations.webhookToRecommendationMs.push(...observed.webhookToRecommendationMs);
      operations.collectionFailures += observed.collectionFailures;
      operations.incompleteRuns += observed.incompleteRuns;
      operations.reverts += observed.reverts;
    } finally {
      await loop.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    runsPerJob: options.runs,
    seeds,
    jobs,
    wallSeconds: (performance.now() - started) / 1000,
    metrics: jobBankMetrics(projects, operations),
  };
}
