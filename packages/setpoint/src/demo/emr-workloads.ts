import { EMRClient, RunJobFlowCommand, type RunJobFlowCommandInput } from '@aws-sdk/client-emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator';
import { countOf } from '@setpoint/foundation/words';
import { emrIntegrationOf } from '../platforms/emr/emr-platform.js';
import type { RunningServer } from '../server/start-server.js';
import type { ImportedProjectSettings } from './loop-records.js';

/** The demo's EMR workloads: recurring Spark steps on transient clusters, each sized once by hand. */
const workloads = [
  {
    key: 'orders-nightly',
    script: 's3://demo-jobs/join-heavy-etl.py',
    groups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
      { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.2xlarge', InstanceCount: 6 },
    ],
  },
  {
    key: 'clickstream-sessions',
    script: 's3://demo-jobs/skewed-join.py',
    groups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'm5.2xlarge', InstanceCount: 3 },
      { InstanceRole: 'TASK', InstanceType: 'm5.2xlarge', InstanceCount: 4 },
    ],
  },
  {
    key: 'ledger-sort',
    script: 's3://demo-jobs/spill-heavy-sort.py',
    groups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'r5.xlarge', InstanceCount: 4 },
    ],
  },
] as const;

/** The emulated EMR account's region (the emulator's EMR face answers for one region). */
export const demoEmrRegion = 'us-east-1';
const projectTagKey = 'setpoint:project-id';
/** The emulator accepts any signed request; these keys open nothing else. */
const demoKeys = { accessKeyId: 'AKIADEMOEMULATOR0000', secretAccessKey: 'emulated-account-secret' };
const recommendationTagKey = 'setpoint:recommendation-id';

type RunJobFlowRequest = RunJobFlowCommandInput;
export type InstanceGroupRequest = NonNullable<
  NonNullable<RunJobFlowRequest['Instances']>['InstanceGroups']
>[number];

/** Core and task node types a random cold start picks from (each has an EMR price in the catalog). */
const coldStartTypes = ['m5.xlarge', 'm5.2xlarge', 'r5.xlarge', 'r5.2xlarge', 'c5.2xlarge', 'm5.4xlarge'];

/**
 * A random plausible cluster for a workload, as the Job Bank gives its Databricks jobs: the primary node
 * kept, 2–7 core nodes and 0–6 on-demand task nodes of one type, different for each seed and workload.
 */
export function randomColdStartGroups(
  groups: readonly InstanceGroupRequest[],
  seed: number,
  index: number,
): InstanceGroupRequest[] {
  const type = coldStartTypes[(seed * 7 + index * 3) % coldStartTypes.length] as string;
  const core = 2 + ((seed * 5 + index * 11) % 6);
  const task = (seed * 3 + index * 5) % 7;
  return [
    ...groups.filter((group) => group.InstanceRole === 'MASTER'),
    { InstanceRole: 'CORE', InstanceType: type, InstanceCount: core },
    ...(task > 0 ? [{ InstanceRole: 'TASK', InstanceType: type, InstanceCount: task } as const] : []),
  ];
}

export interface EmrDemoJob {
  platform: 'emr';
  jobId: string;
  name: string;
  projectIds: string[];
}

/** A transient cluster launched for one run of a workload. */
export interface EmrLaunch {
  clusterId: string;
  stepId: string;
  /** When the cluster will have terminated (planned at launch while the clock stands still; else null). */
  terminatesAt: number | null;
}

export interface EmrDemo {
  accountId: string;
  jobs: EmrDemoJob[];
  /**
   * Launches the workload's next transient cluster and returns its cluster and step ids once the step ended;
   * `from` launches a cluster as the team's code names and sizes it (a Terraform deploy) instead.
   */
  launch(
    job: EmrDemoJob,
    signal?: AbortSignal,
    from?: { name: string; groups: InstanceGroupRequest[] },
  ): Promise<{ clusterId: string; stepId: string }>;
  /**
   * Launches the workload's next transient cluster and returns at once, with when it will have terminated:
   * a round whose clock stands still moves it past every run of the round at one go (`delivered`, then).
   */
  start(job: EmrDemoJob): Promise<EmrLaunch>;
  /** Resolves once the launched step's logs are delivered (the clock has moved past its end). */
  delivered(launch: EmrLaunch, signal?: AbortSignal): Promise<void>;
  /** Queues the collection of a finished step for the job's project. */
  collect(job: EmrDemoJob, clusterId: string, stepId: string): Promise<void>;
  close(): void;
}

/**
 * Moves a clock that stands still past the given instants and lets the workspace catch up (the loop's
 * rounds drive it); resolves at once when the clock runs with real time.
 */
export type SettleClockPast = (instants: readonly number[]) => Promise<void>;

type Wait = <T>(
  probe: () => Promise<T | undefined>,
  what: string,
  options?: { signal?: AbortSignal },
) => Promise<T>;

/**
 * An EMR account on the emulator's EMR face (its event logs in the emulator's in-memory S3), with the
 * demo's workloads launched once, discovered and imported like a person would, auto-apply on. Each next
 * launch takes the project's latest recommendation into RunJobFlow, as Setpoint's Airflow hook does for
 * `EmrCreateJobFlowOperator`, so the runs close the loop.
 */
export async function startEmrWorkloads(
  emulator: RunningEmulator,
  server: RunningServer,
  waitFor: Wait,
  log: (line: string) => void,
  /** Settings every imported project is given besides auto-apply (else the project defaults). */
  projectSettings: ImportedProjectSettings = {},
  /** Start each workload from a random plausible cluster of this seed instead of its hand-sized one. */
  randomColdStartSeed: number | undefined,
  settleClockPast: SettleClockPast,
): Promise<EmrDemo> {
  const services = server.services;
  const integration = emrIntegrationOf(services);
  // The launcher a team's scheduler would be: the AWS SDK against the emulator's EMR face.
  const launcher = new EMRClient({ endpoint: emulator.url, region: demoEmrRegion, credentials: demoKeys });
  const account = await integration.accounts.create(
    {
      name: 'Emulated AWS account (EMR)',
      connection: {
        region: demoEmrRegion,
        credentials: { kind: 'access-keys', ...demoKeys },
        endpoint: emulator.url,
        s3Endpoint: `${emulator.url}/s3`,
      },
      rule: { kind: 'tag', key: projectTagKey },
    },
    { actor: 'demo', role: 'admin' },
  );
  const jobs: EmrDemoJob[] = workloads.map((workload) => ({
    platform: 'emr',
    jobId: `emr:${workload.key}`,
    name: workload.key,
    projectIds: [],
  }));
  const byJob = new Map(
    jobs.map((job, index) => {
      const workload = workloads[index]!;
      const groups =
        randomColdStartSeed === undefined
          ? [...workload.groups]
          : randomColdStartGroups(workload.groups, randomColdStartSeed, index);
      return [job.jobId, { ...workload, groups }];
    }),
  );

  async function instancesFor(
    job: EmrDemoJob,
  ): Promise<{ request: Partial<RunJobFlowRequest>; tags: string[] }> {
    const workload = byJob.get(job.jobId)!;
    const base = { Instances: { KeepJobFlowAliveWhenNoSteps: false, InstanceGroups: [...workload.groups] } };
    const projectId = job.projectIds[0];
    if (!projectId) return { request: base as Partial<RunJobFlowRequest>, tags: [] };
    const project = await services.projects.get(projectId);
    const latest = await services.recommendations.latest(projectId).catch(() => undefined);
    if (!project.settings.autoApply || latest?.state !== 'SUCCESS' || !latest.configuration)
      return { request: base as Partial<RunJobFlowRequest>, tags: [] };
    const recommended = latest.configuration as {
      Instances?: Record<string, unknown>;
      ManagedScalingPolicy?: unknown;
    };
    return {
      request: {
        Instances: { ...recommended.Instances, KeepJobFlowAliveWhenNoSteps: false },
        ...(recommended.ManagedScalingPolicy
          ? { ManagedScalingPolicy: recommended.ManagedScalingPolicy }
          : {}),
      } as Partial<RunJobFlowRequest>,
      tags: [latest.id],
    };
  }

  async function start(
    job: EmrDemoJob,
    from?: { name: string; groups: InstanceGroupRequest[] },
  ): Promise<EmrLaunch> {
    const workload = byJob.get(job.jobId)!;
    const { request, tags } = from
      ? {
          request: {
            Instances: { KeepJobFlowAliveWhenNoSteps: false, InstanceGroups: from.groups },
          } as Partial<RunJobFlowRequest>,
          tags: [],
        }
      : await instancesFor(job);
    const { clock } = emulator.context;
    const day = new Date(clock.now()).toISOString().slice(0, 16).replace(':', '');
    const { JobFlowId } = await launcher.send(
      new RunJobFlowCommand({
        Name: from?.name ?? `${workload.key}-${day}`,
        ReleaseLabel: 'emr-7.2.0',
        LogUri: 's3://demo-emr-logs/logs/',
        Tags: [
          { Key: projectTagKey, Value: workload.key },
          ...tags.map((id) => ({ Key: recommendationTagKey, Value: id })),
        ],
        Configurations: [
          {
            Classification: 'spark-defaults',
            Properties: { 'spark.eventLog.dir': 's3a://demo-spark-events/apps' },
          },
        ],
        Steps: [
          {
            Name: workload.key,
            ActionOnFailure: 'TERMINATE_CLUSTER',
            HadoopJarStep: {
              Jar: 'command-runner.jar',
              Args: ['spark-submit', '--deploy-mode', 'cluster', workload.script],
            },
          },
        ],
        ...request,
      } as RunJobFlowRequest),
    );
    const cluster = emulator.emr.cluster(JobFlowId ?? '');
    const step = cluster.steps[0];
    if (!step) throw new Error(`cluster ${cluster.id} has no step`);
    const terminatesAt =
      clock.clockSpeed === 0 ? (emulator.emr.plannedTerminationOf(cluster.id) ?? null) : null;
    return { clusterId: cluster.id, stepId: step.id, terminatesAt };
  }

  async function delivered(launch: EmrLaunch, signal?: AbortSignal): Promise<void> {
    const step = emulator.emr.cluster(launch.clusterId).steps.find((entry) => entry.id === launch.stepId);
    await waitFor(
      async () => {
        emulator.emr.catchUp();
        return step?.logsDelivered ? true : undefined;
      },
      `step ${launch.stepId} of cluster ${launch.clusterId}`,
      signal ? { signal } : {},
    );
  }

  /** Launches and waits for the step's logs, moving a clock that stands still past the cluster's end. */
  async function launch(
    job: EmrDemoJob,
    signal?: AbortSignal,
    from?: { name: string; groups: InstanceGroupRequest[] },
  ) {
    const launched = await start(job, from);
    if (launched.terminatesAt !== null) await settleClockPast([launched.terminatesAt]);
    await delivered(launched, signal);
    return { clusterId: launched.clusterId, stepId: launched.stepId };
  }

  // One run of each, then discovery groups them by the project tag and import makes the projects.
  const first: EmrLaunch[] = [];
  for (const job of jobs) first.push(await start(job));
  await settleClockPast(first.flatMap((launched) => launched.terminatesAt ?? []));
  for (const launched of first) await delivered(launched);
  const { imported } = await integration.importWorkloads(
    account.id,
    {
      keys: workloads.map((workload) => workload.key),
      sinceDays: 30,
      settings: { ...projectSettings, autoApply: true },
      collectHistory: true,
    },
    'demo',
  );
  for (const entry of imported) {
    const job = jobs.find((candidate) => candidate.name === entry.key);
    job?.projectIds.push(entry.projectId);
    log(`imported EMR workload ${entry.key} (${countOf(entry.queuedRuns, 'run')} queued)`);
  }
  log(`launched ${first.length} EMR clusters`);

  return {
    accountId: account.id,
    jobs,
    launch,
    start: (job) => start(job),
    delivered,
    async collect(job, clusterId, stepId) {
      for (const projectId of job.projectIds)
        await integration.enqueueCollect(account.id, clusterId, stepId, projectId);
    },
    close: () => launcher.destroy(),
  };
}
