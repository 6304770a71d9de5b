import { rmSync } from 'node:fs';
import { type ApplyMode, type ApprovalState, approvalStates } from '@setpoint/api-contract';
import type { RunningEmulator } from '@setpoint/databricks-emulator';
import { countOf } from '@setpoint/foundation/words';
import { loadConfig } from '../config/load-config.js';
import { createDatabricksClient } from '../platforms/databricks/api/client.js';
import { databricksIntegrationOf } from '../platforms/databricks/databricks-platform.js';
import { serverlessProjectKey } from '../platforms/databricks/serverless/serverless-tasks.js';
import { catalogNodeSpecs } from '../pricing/catalog-node-specs.js';
import { type RunningServer, startServer } from '../server/start-server.js';
import { sharedFleetPriorSource } from '../service/recommender/fleet-prior-source.js';
import type { Run } from '../service/runs/run-service.js';
import { alertOnApprovals, startAlertReceiver } from './approval-alerts.js';
import { type EmrDemo, type EmrDemoJob, type EmrLaunch, startEmrWorkloads } from './emr-workloads.js';
import { loadEmulator } from './load-emulator.js';
import type { ApprovalCounts, ImportedProjectSettings, ProjectRun } from './loop-records.js';
import { markLearningRuns } from './loop-summary.js';
import { deliverRound, type RoundDelivery } from './round-delivery.js';

export interface DriverOptions {
  port: number;
  dataDir: string;
  seed: number;
  /**
   * Simulated ms per real ms: how fast the emulator's jobs run. Set, the clock runs with real time from the
   * start (the paced demo); unset, the rounds drive it where they can (`clockDrivenByRounds`), else 7200.
   */
  clockSpeed?: number;
  /** Simulated epoch ms the emulator starts at (the demo starts in the past); default now. */
  startTimeMs?: number;
  /** Rewrite each job's cluster to a random plausible size before import (a different cold start per seed). */
  randomColdStart?: boolean;
  /** Extra env for the Setpoint server config (tests make it faster). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /**
   * Read the workspace through system tables only: its SQL warehouse is set before import and every job
   * cluster's `cluster_log_conf` is removed, so no event log is ever delivered.
   */
  agentless?: boolean;
  /**
   * Add an EMR account on the emulator's EMR face with recurring workloads on transient clusters (their
   * event logs in the emulator's in-memory S3), imported with auto-apply on like the Databricks jobs.
   */
  emr?: boolean;
  /**
   * Add the Job Bank's serverless jobs (the emulator's `serverlessJobs`): the workspace reads system tables
   * through its SQL warehouse from the start, as serverless billing needs, and each is imported like the rest.
   */
  serverless?: boolean;
  /** Settings every imported project is given besides auto-apply (else the project defaults). */
  projectSettings?: ImportedProjectSettings;
  /**
   * Databricks jobs (by name) imported in apply mode `approve-learning` instead of `auto`: their learning
   * runs wait for a person's approval, and one nobody approves before the next run is superseded. Each
   * has an `approval_needed` alert rule, sent to a webhook on the loopback that logs what it receives.
   */
  approveLearningJobs?: readonly string[];
}

export interface ClosedLoop {
  emulator: RunningEmulator;
  server: RunningServer;
  workspaceId: string;
  jobs: Array<
    | {
        platform: 'databricks';
        jobId: string;
        name: string;
        projectIds: string[];
        /** Its tasks run on serverless compute (no cluster to size; performance-mode advice). */
        serverless?: boolean;
      }
    | EmrDemoJob
  >;
  /**
   * Runs every job once — concurrently (`burst`, the default) or each after the previous run is digested
   * (`one-at-a-time`: with a clock the rounds drive, a run then starts where the previous one's logs are
   * out, later in the simulated day) — waits until Setpoint has digested every run, then relearns the
   * fleet prior if the organization's fleet moved: every recommendation of a round sees the prior learned
   * after the round before, so the loop's outcome depends on its seed, not on how fast the machine is.
   * Without serverless or agentless jobs or a `clockSpeed` the workspace's clock is driven by the rounds
   * alone (see `clockDrivenByRounds`): a round starts a simulated day after the one before, whatever the
   * real time.
   */
  round(delivery?: RoundDelivery): Promise<void>;
  /** Runs one job once and waits until Setpoint has digested that run (other jobs may still be busy). */
  runJob(job: ClosedLoop['jobs'][number], signal?: AbortSignal): Promise<void>;
  /** Sets the job's SLA to 1.25× its first runtime, as a team does once it has seen the job run. */
  setSlaFromFirstRun(job: ClosedLoop['jobs'][number]): Promise<void>;
  /** The emulated workspace's clock (simulated epoch ms). */
  workspaceNow(): number;
  /** The EMR account and its workloads, when the loop has them. */
  emr: EmrDemo | undefined;
  /** The project's runs, oldest first, each marked with whether a learning recommendation configured it. */
  runsOf(projectId: string): Promise<ProjectRun[]>;
  /** How many of the project's learning runs waited for approval, by what became of them. */
  approvalsOf(projectId: string): Promise<ApprovalCounts>;
  close(): Promise<void>;
}

const coldStartTypes = ['m5.xlarge', 'm5.2xlarge', 'r5.xlarge', 'c5.2xlarge', 'i3.xlarge', 'm5d.2xlarge'];

async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  // generous: the first rounds wait for the fleet prior, which takes minutes on a loaded machine
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The demo's emulated workspace: an AWS one in us-west-2, whose jobs use AWS instance types only. */
export const demoWorkspace = { cloud: 'aws', region: 'us-west-2' } as const;

/** A run's logs stay in the emulated workspace this long after delivery (simulated), then expire. */
const workspaceLogLifetimeMs = 2 * 86_400_000;

/** Simulated time from one round's start to the next's: the loop's jobs run daily. */
const roundIntervalMs = 86_400_000;

/**
 * After a round's last run ends, simulated time moves this far before Setpoint digests the round: past its
 * clusters' termination (seconds) and the final delivery of their logs (at most 3 minutes after it).
 */
const roundSettleMs = 15 * 60_000;

/**
 * Whether a loop's rounds drive the workspace's clock (it stands still between rounds and moves only as
 * far as the round's runs need), instead of running at `clockSpeed` with real time. With a running clock,
 * what a run meets depends on how long the machine took to digest the rounds before it: the days its
 * data grew (a growing job's input), the cluster ids (stamped with the time, seeding log delays and
 * billing noise). A caller that sets `clockSpeed` (the paced demo) keeps the running clock, and so do
 * loops that need simulated time to pass while Setpoint collects: agentless and serverless runs are read
 * from system tables, whose rows arrive after a delay. EMR runs do not: each transient cluster's end is
 * planned at launch, so the round moves the clock past it with the Databricks runs.
 */
function clockDrivenByRounds(options: DriverOptions): boolean {
  return options.clockSpeed === undefined && !options.agentless && !options.serverless;
}

/**
 * Where a clock the rounds drive starts, unless the caller says: midnight UTC today, so a loop's cluster
 * ids (stamped with the time) are the same whenever it runs that day, and its runs are dated today.
 */
function startOfToday(): number {
  return Math.floor(Date.now() / 86_400_000) * 86_400_000;
}

/**
 * Setpoint and an emulated workspace in one process, with every emulator job imported and
 * auto-apply on: the closed loop the seed documents describe, driven one round of runs at a time.
 */
export async function startClosedLoop(options: DriverOptions): Promise<ClosedLoop> {
  const log = options.log ?? (() => {});
  rmSync(options.dataDir, { recursive: true, force: true });
  const { startEmulator } = await loadEmulator();
  const drivenByRounds = clockDrivenByRounds(options);
  const clockSpeed = options.clockSpeed ?? 7200;
  // a clock the rounds drive stands still until the first round (or until a run started on its own)
  const startTimeMs = options.startTimeMs ?? (drivenByRounds ? startOfToday() : undefined);
  const emulator = await startEmulator({
    nodeSpecs: catalogNodeSpecs,
    port: 0,
    seed: options.seed,
    cloud: demoWorkspace.cloud,
    clockSpeed: drivenByRounds ? 0 : clockSpeed,
    ...(startTimeMs === undefined ? {} : { startTimeMs }),
    rateLimitScale: 0,
    // a terminated cluster's task-level detail is dropped once its logs are out, so memory stays flat
    clusterDetailRetentionMs: workspaceLogLifetimeMs,
    ...(options.emr ? { memoryS3: true } : {}),
    ...(options.serverless ? { serverlessJobs: true } : {}),
  });
  const approvals = options.approveLearningJobs?.length ? await startAlertReceiver(log) : undefined;
  const config = loadConfig(
    { dataDir: options.dataDir, port: options.port },
    {
      SETPOINT_LOG_LEVEL: 'warn',
      SETPOINT_LOG_COMPLETENESS_POLL_MS: '50',
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
      SETPOINT_JOB_MAX_ATTEMPTS: '12',
      SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '8',
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '30',
      // the emulated workspace's clock runs faster than the real one (benches advance it by days)
      SETPOINT_RUN_CLOCK_TOLERANCE_HOURS: '87600',
      SETPOINT_MAX_AUTO_CHANGES_PER_WEEK: '1000',
      // The emulated workspace listens on loopback, which the SSRF rule refuses unless allow-listed:
      // its address and port only, not every service on the machine.
      SETPOINT_OUTBOUND_ALLOW_LIST: [new URL(emulator.url).host, approvals?.host]
        .filter((host) => host !== undefined)
        .join(','),
      ...options.env,
    },
  );
  const server = await startServer(config);
  const services = server.services;
  const workspace = await services.workspaces.create(
    {
      name: 'Emulated workspace',
      platform: 'databricks',
      ...demoWorkspace,
      host: emulator.url,
      planType: 'Premium',
      computeType: 'Jobs Compute',
      credentials: { token: emulator.token },
    },
    'demo',
  );
  const databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
  if (options.agentless || options.serverless) {
    const warehouses = await fetch(`${emulator.url}/api/2.0/sql/warehouses`, {
      headers: { authorization: `Bearer ${emulator.token}` },
    }).then((response) => response.json() as Promise<{ warehouses?: Array<{ id: string }> }>);
    const warehouseId = warehouses.warehouses?.[0]?.id;
    if (!warehouseId) throw new Error('the emulated workspace has no SQL warehouse');
    await databricksIntegrationOf(services).store.saveWorkspaceLink(workspace.id, {
      sqlWarehouseId: warehouseId,
    });
  }
  const withoutLogs = <T extends { cluster_log_conf?: unknown }>(cluster: T): T => {
    if (!options.agentless) return cluster;
    const { cluster_log_conf: _dropped, ...rest } = cluster;
    return rest as T;
  };
  const jobs: ClosedLoop['jobs'] = [];
  const awaitingApproval: string[] = [];
  let index = 0;
  for await (const job of databricks.listJobs()) {
    if (options.randomColdStart || options.agentless) {
      const tasks = (job.settings.tasks ?? []).map((task) => {
        if (!task.new_cluster) return task;
        if (!options.randomColdStart) return { ...task, new_cluster: withoutLogs(task.new_cluster) };
        const type = coldStartTypes[(options.seed * 7 + index * 3) % coldStartTypes.length] ?? 'm5.xlarge';
        const workers = 2 + ((options.seed * 5 + index * 11) % 10);
        const { autoscale: _autoscale, ...rest } = task.new_cluster;
        return { ...task, new_cluster: withoutLogs({ ...rest, node_type_id: type, num_workers: workers }) };
      });
      const jobClusters = (job.settings.job_clusters ?? []).map((entry) =>
        entry.new_cluster ? { ...entry, new_cluster: withoutLogs(entry.new_cluster) } : entry,
      );
      if (tasks.some((task) => task.new_cluster) || (options.agentless && jobClusters.length > 0))
        await databricks.updateJob(job.job_id, {
          tasks: tasks.filter((task) => task.new_cluster),
          ...(options.agentless && jobClusters.length > 0 ? { job_clusters: jobClusters } : {}),
        });
    }
    index += 1;
    const applyMode: ApplyMode = options.approveLearningJobs?.includes(job.settings.name ?? '')
      ? 'approve-learning'
      : 'auto';
    const [imported] = await databricksIntegrationOf(services).onboarding.importJobs(
      workspace.id,
      {
        jobIds: [job.job_id],
        settings: { ...options.projectSettings, autoApply: true, applyMode },
      },
      'demo',
    );
    if (applyMode === 'approve-learning')
      awaitingApproval.push(...(imported?.projects.map((project) => project.id) ?? []));
    const serverless = imported?.projects.some((project) => project.clusterKey === serverlessProjectKey);
    jobs.push({
      platform: 'databricks',
      jobId: job.job_id,
      name: job.settings.name ?? job.job_id,
      projectIds: imported?.projects.map((project) => project.id) ?? [],
      ...(serverless ? { serverless: true } : {}),
    });
    log(
      `imported ${job.settings.name} (${countOf(imported?.projects.length ?? 0, 'project')}${applyMode === 'auto' ? '' : `, apply mode ${applyMode}`})`,
    );
  }
  if (approvals) await alertOnApprovals(server, approvals, awaitingApproval);
  const { clock } = emulator.context;

  /** Moves the stopped clock forward and lets the workspace do what falls due: run ends, webhooks, logs. */
  async function advanceClockTo(atMs: number): Promise<void> {
    clock.advance(Math.max(0, atMs - clock.now()));
    emulator.context.engine.catchUp();
    await emulator.context.webhooks.settle();
  }

  /** Moves a clock the rounds drive past the instants and their clusters' final logs, at one go. */
  async function settleClockPast(instants: readonly number[]): Promise<void> {
    if (!drivenByRounds || clock.clockSpeed !== 0 || instants.length === 0) return;
    await advanceClockTo(Math.max(clock.now(), ...instants) + roundSettleMs);
  }

  const emr: EmrDemo | undefined = options.emr
    ? await startEmrWorkloads(
        emulator,
        server,
        waitFor,
        log,
        options.projectSettings,
        options.randomColdStart ? options.seed : undefined,
        settleClockPast,
      )
    : undefined;
  // The imported first runs are collected while the loop starts: waiting here would let the emulated
  // clock run ahead of the paced demo's schedule.
  if (emr) jobs.push(...emr.jobs);

  /** The project's runs, oldest first, without their learning mark (polled while runs are digested). */
  async function storedRuns(projectId: string): Promise<Array<Omit<ProjectRun, 'learning'>>> {
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

  /** The project's approvals, each state's recommendation ids (none unless in apply mode approve-learning). */
  async function approvalIds(projectId: string): Promise<Record<ApprovalState, string[]>> {
    const ids = await Promise.all(
      approvalStates.map(async (state) => {
        const approvals = await services.applies.listApprovals({ state, projectId, limit: 500 });
        return [state, approvals.map((approval) => approval.recommendationId)] as const;
      }),
    );
    return Object.fromEntries(ids) as Record<ApprovalState, string[]>;
  }

  async function runsOf(projectId: string): Promise<ProjectRun[]> {
    const recommendations = await services.recommendations.list(projectId, { limit: 500, offset: 0 });
    const { waiting, rejected, superseded } = await approvalIds(projectId);
    const withheld = new Set([...waiting, ...rejected, ...superseded]);
    return markLearningRuns(await storedRuns(projectId), recommendations.items, withheld);
  }

  async function approvalsOf(projectId: string): Promise<ApprovalCounts> {
    const ids = await approvalIds(projectId);
    return {
      waiting: ids.waiting.length,
      approved: ids.approved.length,
      rejected: ids.rejected.length,
      superseded: ids.superseded.length,
    };
  }

  async function runDigested(projectIds: string[], runId: string): Promise<boolean> {
    for (const projectId of projectIds) {
      const runs = await storedRuns(projectId);
      const run = runs.find((candidate) => candidate.runId === runId);
      if (!run || (run.pipelineState !== 'DONE' && run.pipelineState !== 'FAILED')) return false;
    }
    return true;
  }

  async function digested(projectIds: string[], runId: string): Promise<boolean> {
    if (!(await runDigested(projectIds, runId))) return false;
    const depth = await services.queue.depth();
    return depth.every((entry) => entry.count === 0);
  }

  async function setSlaFromFirstRun(job: ClosedLoop['jobs'][number]) {
    for (const projectId of job.projectIds) {
      const first = (await storedRuns(projectId))[0];
      if (first?.runtimeMinutes) {
        await services.projects.update(
          projectId,
          { settings: { slaMinutes: Math.ceil(first.runtimeMinutes * 1.25) } },
          'demo',
        );
      }
    }
  }

  /** Starts one run of a job; resolves with the run's external id once the platform has it. */
  async function startRun(job: ClosedLoop['jobs'][number], signal?: AbortSignal): Promise<string> {
    if (emr && job.platform === 'emr') {
      const { clusterId, stepId } = await emr.launch(job, signal);
      await emr.collect(job, clusterId, stepId);
      return `${clusterId}:${stepId}`;
    }
    return databricks.runNow(job.jobId);
  }

  // The server runs in this process, so its recommenders learn their prior with the process's source,
  // which may still hold the organization of a loop this process ran before (a bench's previous seed). A
  // loop driven run by run (`runJob`, the paced demo) leaves it relearning on request, as a service does.
  const fleetPriorSource = sharedFleetPriorSource();
  await fleetPriorSource.forgetOrganization();
  let roundNumber = 0;
  /** Where the round-driven clock starts the next round (set by the first round). */
  let nextRoundAt: number | undefined;

  /**
   * Stops the clock at the round's start: a simulated day after the previous round's, or when the previous
   * round is over if it took longer (a long run, a caller's own advance) — both simulated, so either way
   * the same for the same seed.
   */
  async function startRoundClock(): Promise<void> {
    clock.setSpeed(0);
    const startAt = Math.max(nextRoundAt ?? clock.now(), clock.now());
    await advanceClockTo(startAt);
    nextRoundAt = startAt + roundIntervalMs;
  }

  /** EMR runs of the round under way, by run id: collected once the round's clock has moved past them. */
  const emrInRound = new Map<string, { job: EmrDemoJob; launched: EmrLaunch }>();

  /** Starts a run in a round; an EMR run on a clock that stands still is collected once the round ends. */
  async function startInRound(job: ClosedLoop['jobs'][number]): Promise<string> {
    if (!(emr && job.platform === 'emr' && drivenByRounds)) return startRun(job);
    const launched = await emr.start(job);
    const runId = `${launched.clusterId}:${launched.stepId}`;
    emrInRound.set(runId, { job, launched });
    return runId;
  }

  /** Moves the stopped clock past the end of the round's runs and their clusters' final logs. */
  async function finishRoundClock(runIds: readonly string[]): Promise<void> {
    const ends = runIds.map(
      (runId) =>
        emrInRound.get(runId)?.launched.terminatesAt ??
        emulator.context.state.runs.get(Number(runId))?.endMs ??
        clock.now(),
    );
    await settleClockPast(ends);
    for (const runId of runIds) {
      const pending = emrInRound.get(runId);
      if (!pending || !emr) continue;
      await emr.delivered(pending.launched);
      await emr.collect(pending.job, pending.launched.clusterId, pending.launched.stepId);
      emrInRound.delete(runId);
    }
  }
  return {
    emulator,
    server,
    workspaceId: workspace.id,
    jobs,
    runsOf,
    approvalsOf,
    emr,
    async round(delivery = 'burst') {
      roundNumber += 1;
      fleetPriorSource.relearnOnlyOnRefresh();
      if (drivenByRounds) await startRoundClock();
      await deliverRound(jobs, delivery, {
        start: startInRound,
        finish: async (runIds) => {
          if (drivenByRounds) await finishRoundClock(runIds);
        },
        digested: async (job, runId) => {
          await waitFor(
            async () => ((await digested(job.projectIds, runId)) ? true : undefined),
            `run ${runId} of ${job.name}`,
          );
        },
      });
      if (roundNumber === 1) for (const job of jobs) await setSlaFromFirstRun(job);
      await waitFor(
        async () => ((await services.queue.depth()).every((entry) => entry.count === 0) ? true : undefined),
        'the queue to drain',
      );
      await fleetPriorSource.refresh();
      log(`round ${roundNumber} done`);
    },
    async runJob(job, signal) {
      // a loop driven run by run (the paced demo) runs its clock with real time
      if (clock.clockSpeed === 0 && drivenByRounds) clock.setSpeed(clockSpeed);
      const runId = await startRun(job, signal);
      await waitFor(
        async () => ((await runDigested(job.projectIds, runId)) ? true : undefined),
        `run ${runId} of ${job.name}`,
        signal ? { signal } : {},
      );
      emulator.context.fs.expireFilesBefore(emulator.context.clock.now() - workspaceLogLifetimeMs);
      emulator.memoryS3?.expireBefore(emulator.context.clock.now() - workspaceLogLifetimeMs);
    },
    setSlaFromFirstRun,
    workspaceNow: () => emulator.context.clock.now(),
    async close() {
      emr?.close();
      await server.stop();
      await emulator.close();
      await approvals?.close();
    },
  };
}
