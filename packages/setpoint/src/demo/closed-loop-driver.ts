import { rmSync } from 'node:fs';
import type { RunningEmulator } from '@setpoint/databricks-emulator';
import { loadConfig } from '../config/load-config.js';
import { createDatabricksClient } from '../platforms/databricks/api/client.js';
import { databricksIntegrationOf } from '../platforms/databricks/databricks-platform.js';
import { catalogNodeSpecs } from '../pricing/catalog-node-specs.js';
import { type RunningServer, startServer } from '../server/start-server.js';
import type { Run } from '../service/runs/run-service.js';
import { loadEmulator } from './load-emulator.js';

export interface DriverOptions {
  port: number;
  dataDir: string;
  seed: number;
  /** Simulated ms per real ms: how fast the emulator's jobs run. */
  clockSpeed?: number;
  /** Rewrite each job's cluster to a random plausible size before import (a different cold start per seed). */
  randomColdStart?: boolean;
  /** Extra env for the Setpoint server config (tests make it faster). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface ProjectRun {
  /** Setpoint's id of the run. */
  id: string;
  /** The Databricks run id. */
  runId: string;
  status: string | null;
  runtimeMinutes: number | null;
  costUsd: number | null;
  pipelineState: string;
  endedAt: number | null;
  /** The recommendation whose configuration the run used, when it used one. */
  recommendationId: string | null;
}

export interface ClosedLoop {
  emulator: RunningEmulator;
  server: RunningServer;
  workspaceId: string;
  jobs: { jobId: string; name: string; projectIds: string[] }[];
  /** Runs every job once, concurrently, and waits until Setpoint has digested every run. */
  round(): Promise<void>;
  runsOf(projectId: string): Promise<ProjectRun[]>;
  close(): Promise<void>;
}

const coldStartTypes = ['m5.xlarge', 'm5.2xlarge', 'r5.xlarge', 'c5.2xlarge', 'i3.xlarge', 'm5d.2xlarge'];

async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Setpoint and an emulated workspace in one process, with every emulator job imported and
 * auto-apply on: the closed loop the seed documents describe, driven one round of runs at a time.
 */
export async function startClosedLoop(options: DriverOptions): Promise<ClosedLoop> {
  const log = options.log ?? (() => {});
  rmSync(options.dataDir, { recursive: true, force: true });
  const { startEmulator } = await loadEmulator();
  const emulator = await startEmulator({
    nodeSpecs: catalogNodeSpecs,
    port: 0,
    seed: options.seed,
    clockSpeed: options.clockSpeed ?? 7200,
    rateLimitScale: 0,
  });
  const config = loadConfig(
    { dataDir: options.dataDir, port: options.port },
    {
      SETPOINT_LOG_LEVEL: 'warn',
      SETPOINT_LOG_COMPLETENESS_POLL_MS: '50',
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
      SETPOINT_JOB_MAX_ATTEMPTS: '12',
      SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '8',
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '30',
      SETPOINT_MAX_AUTO_CHANGES_PER_WEEK: '1000',
      // The emulated workspace listens on loopback, which the SSRF rule refuses unless allow-listed.
      SETPOINT_OUTBOUND_ALLOW_LIST: new URL(emulator.url).hostname,
      ...options.env,
    },
  );
  const server = await startServer(config);
  const services = server.services;
  const workspace = await services.workspaces.create(
    {
      name: 'Emulated workspace',
      platform: 'databricks',
      cloud: 'aws',
      region: 'us-west-2',
      host: emulator.url,
      planType: 'Premium',
      computeType: 'Jobs Compute',
      credentials: { token: emulator.token },
    },
    'demo',
  );
  const databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
  const jobs: ClosedLoop['jobs'] = [];
  let index = 0;
  for await (const job of databricks.listJobs()) {
    if (options.randomColdStart) {
      const tasks = (job.settings.tasks ?? []).map((task) => {
        if (!task.new_cluster) return task;
        const type = coldStartTypes[(options.seed * 7 + index * 3) % coldStartTypes.length] ?? 'm5.xlarge';
        const workers = 2 + ((options.seed * 5 + index * 11) % 10);
        const { autoscale: _autoscale, ...rest } = task.new_cluster;
        return { ...task, new_cluster: { ...rest, node_type_id: type, num_workers: workers } };
      });
      if (tasks.some((task) => task.new_cluster))
        await databricks.updateJob(job.job_id, { tasks: tasks.filter((task) => task.new_cluster) });
    }
    index += 1;
    const [imported] = await databricksIntegrationOf(services).onboarding.importJobs(
      workspace.id,
      { jobIds: [job.job_id], settings: { autoApply: true } },
      'demo',
    );
    jobs.push({
      jobId: job.job_id,
      name: job.settings.name ?? job.job_id,
      projectIds: imported?.projects.map((project) => project.id) ?? [],
    });
    log(`imported ${job.settings.name} (${imported?.projects.length ?? 0} project(s))`);
  }

  async function runsOf(projectId: string): Promise<ProjectRun[]> {
    const page = await services.runs.list(projectId, { limit: 500, offset: 0 });
    return page.items
      .map((run: Run) => ({
        id: run.id,
        runId: run.externalRunId,
        status: run.status,
        runtimeMinutes: run.startedAt && run.endedAt ? (run.endedAt - run.startedAt) / 60_000 : null,
        costUsd: run.cost?.totalUsd ?? null,
        pipelineState: run.pipelineState,
        endedAt: run.endedAt,
        recommendationId: run.recommendationId,
      }))
      .reverse();
  }

  async function digested(projectIds: string[], runId: string): Promise<boolean> {
    for (const projectId of projectIds) {
      const runs = await runsOf(projectId);
      const run = runs.find((candidate) => candidate.runId === runId);
      if (!run || (run.pipelineState !== 'DONE' && run.pipelineState !== 'FAILED')) return false;
    }
    const depth = await services.queue.depth();
    return depth.every((entry) => entry.count === 0);
  }

  let roundNumber = 0;
  return {
    emulator,
    server,
    workspaceId: workspace.id,
    jobs,
    runsOf,
    async round() {
      roundNumber += 1;
      const started = await Promise.all(
        jobs.map(async (job) => ({ job, runId: await databricks.runNow(job.jobId) })),
      );
      for (const { job, runId } of started) {
        await waitFor(
          async () => ((await digested(job.projectIds, runId)) ? true : undefined),
          `run ${runId} of ${job.name}`,
        );
      }
      if (roundNumber === 1) {
        // a team sets the SLA once it has seen the job run: here 1.25× the first runtime
        for (const job of jobs) {
          for (const projectId of job.projectIds) {
            const first = (await runsOf(projectId))[0];
            if (first?.runtimeMinutes) {
              await services.projects.update(
                projectId,
                { settings: { slaMinutes: Math.ceil(first.runtimeMinutes * 1.25) } },
                'demo',
              );
            }
          }
        }
      }
      await waitFor(
        async () => ((await services.queue.depth()).every((entry) => entry.count === 0) ? true : undefined),
        'the queue to drain',
      );
      log(`round ${roundNumber} done`);
    },
    async close() {
      await server.stop();
      await emulator.close();
    },
  };
}
