import {
  AddJobFlowStepsCommand,
  type EMRClient,
  ListInstanceGroupsCommand,
  RunJobFlowCommand,
  type RunJobFlowCommandInput,
} from '@aws-sdk/client-emr';
import type { EmrAccountResource, EmrAppliedConfigList, EmrImportResource } from '@setpoint/api-contract/emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { type ApiCall, signedInApi } from '../support/signed-in-api.js';
import {
  type EmrFace,
  emrAccountRequest,
  startEmrFace,
  startSetpointForEmr,
} from './support/emr-test-bench.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 400_000 });

const hour = 3_600_000;
const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret-never-shown' };
const logConfig = [
  { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' } },
];
/** The long-running cluster's task group: far more than its light hourly step needs. */
const seededTaskCount = 22;

const sparkStep = (name: string, script: string, actionOnFailure?: 'CONTINUE') => ({
  Name: name,
  ...(actionOnFailure ? { ActionOnFailure: actionOnFailure } : {}),
  HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', `s3://jobs/${script}`] },
});

function nightly(date: string): RunJobFlowCommandInput {
  return {
    Name: `nightly-orders-${date}`,
    ReleaseLabel: 'emr-7.2.0',
    LogUri: 's3://emr-logs/logs/',
    Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
    Configurations: logConfig,
    Instances: {
      KeepJobFlowAliveWhenNoSteps: false,
      InstanceGroups: [
        { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
        { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
        { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.2xlarge', InstanceCount: 4 },
      ],
    },
    Steps: [sparkStep('orders-etl', 'daily-aggregation.py')],
  };
}

/**
 * The demo's clickstream workload on a transient cluster (skewed join; 3 core and 4 task m5.2xlarge):
 * every launch pays about ten minutes of provisioning, bootstrap and termination besides its step.
 */
const clickstreamGroups = [
  { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
  { InstanceRole: 'CORE', InstanceType: 'm5.2xlarge', InstanceCount: 3 },
  { InstanceRole: 'TASK', InstanceType: 'm5.2xlarge', InstanceCount: 4 },
] as const;

function clickstream(date: string, instances?: Record<string, unknown>): RunJobFlowCommandInput {
  return {
    Name: `clickstream-sessions-${date}`,
    ReleaseLabel: 'emr-7.2.0',
    LogUri: 's3://emr-logs/logs/',
    Tags: [{ Key: 'setpoint:project-id', Value: 'clickstream' }],
    Configurations: logConfig,
    Instances: {
      ...(instances ?? { InstanceGroups: [...clickstreamGroups] }),
      KeepJobFlowAliveWhenNoSteps: false,
    },
    Steps: [sparkStep('clickstream-sessions', 'skewed-join.py')],
  } as RunJobFlowCommandInput;
}

/** A shared cluster sized once for a peak long gone: two core and 22 spot task instances for a light step. */
const overProvisioned: RunJobFlowCommandInput = {
  Name: 'shared-reporting',
  ReleaseLabel: 'emr-7.2.0',
  LogUri: 's3://emr-logs/logs/',
  Configurations: logConfig,
  Instances: {
    KeepJobFlowAliveWhenNoSteps: true,
    InstanceGroups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'c5.xlarge', InstanceCount: 2 },
      { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'c5.xlarge', InstanceCount: seededTaskCount },
    ],
  },
  Steps: ['01', '02', '03', '04'].map((at) =>
    sparkStep(`hourly-report 2026-03-06T${at}:00`, 'many-small-jobs.py'),
  ),
};

/**
 * The whole loop through the job queue and the workers, with nothing called directly: the reconciliation
 * schedule finds the steps, the pipeline recommends, auto-apply queues `emr.apply`, a bad run reverts.
 */
describe('the EMR closed loop (emulator, SQLite, the reconciliation schedule)', () => {
  let face: EmrFace;
  let emulator: RunningEmulator;
  let server: RunningServer;
  let launcher: EMRClient;
  let accountId: string;

  let api: ApiCall;

  const processedRuns = (projectId: string, count: number) =>
    eventually(
      async () => {
        const page = await server.services.runs.list(projectId, { limit: 50, offset: 0 });
        const done = page.items.filter(
          (run) => run.pipelineState === 'DONE' || run.pipelineState === 'FAILED',
        );
        return done.length >= count ? done : undefined;
      },
      `${count} runs of ${projectId} to be processed`,
      300_000,
    );

  /** No job of the project's pipeline or apply is queued or running: every decision on its runs is made. */
  const settled = (projectId: string) =>
    eventually(
      async () => {
        const busy = await server.services.store.db
          .selectFrom('queue_jobs')
          .select(['kind'])
          .where('state', 'in', ['queued', 'running'])
          .where('kind', '!=', 'emr.reconcile')
          .execute();
        return busy.length === 0 ? true : undefined;
      },
      `the queue to settle for ${projectId}`,
      300_000,
    );

  const taskCount = async (clusterId: string) =>
    (await launcher.send(new ListInstanceGroupsCommand({ ClusterId: clusterId }))).InstanceGroups?.find(
      (group) => group.InstanceGroupType === 'TASK',
    )?.RequestedInstanceCount;

  beforeAll(async () => {
    face = await startEmrFace(9, keys);
    ({ emulator, launcher } = face);
    server = await startSetpointForEmr('emr-loop', {
      // the schedule under test: every imported account is reconciled each second
      SETPOINT_RECONCILE_INTERVAL_SECONDS: '1',
      SETPOINT_MAX_AUTO_CHANGES_PER_WEEK: '1',
    });
    ({ api } = await signedInApi(server, 'emr-loop-test'));
    const created = await api<EmrAccountResource>(
      'POST',
      '/api/v1/emr/accounts',
      emrAccountRequest(face, keys, 'analytics prod'),
    );
    expect(created.status).toBe(201);
    accountId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await face?.close();
  });

  it('the reconciliation schedule collects a transient cluster nobody announced', async () => {
    for (const date of ['2026-03-02', '2026-03-03']) {
      await launcher.send(new RunJobFlowCommand(nightly(date)));
      await face.advance(8 * hour);
    }
    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['orders'],
      since_days: 30,
      settings: { slaMinutes: 240 },
    });
    const projectId = imported.body.projects[0]?.id as string;
    await processedRuns(projectId, 2);

    // launched after the import, by something that never tells Setpoint (a cron job, Step Functions)
    const { JobFlowId } = await launcher.send(new RunJobFlowCommand(nightly('2026-03-04')));
    await face.advance(8 * hour);

    const runs = await processedRuns(projectId, 3);
    const unannounced = runs.find((run) => run.externalRunId.startsWith(`${JobFlowId}:`));
    expect(unannounced).toMatchObject({ status: 'SUCCESS', pipelineState: 'DONE' });
    const reconciled = await server.services.store.db
      .selectFrom('queue_jobs')
      .select(['state'])
      .where('kind', '=', 'emr.reconcile')
      .where('state', '=', 'done')
      .execute();
    expect(reconciled.length).toBeGreaterThan(0);
    const account = await emrIntegrationOf(server.services).accounts.get(accountId);
    expect(account.lastReconciledAt).not.toBeNull();
  });

  it('on a transient cluster, prices each shape with the launch’s start-up and idle time: no move to a costlier shape', async () => {
    await launcher.send(new RunJobFlowCommand(clickstream('2026-03-05')));
    await face.advance(8 * hour);
    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['clickstream'],
      since_days: 30,
    });
    const projectId = imported.body.projects[0]?.id as string;
    const [kept] = await processedRuns(projectId, 1);
    await settled(projectId);
    const keptCost = kept?.cost?.totalUsd as number;

    const recommendation = await server.services.recommendations.latest(projectId);
    expect(recommendation.state).toBe('SUCCESS');
    const predicted = recommendation.prediction?.costUsd?.mid as number;
    // the card compares like with like (the whole launch): no shape is predicted dearer than the kept one
    expect(predicted).toBeLessThanOrEqual(keptCost * 1.02);

    // the next launch takes the recommendation (as the Airflow hook does)
    const configuration = recommendation.configuration as { Instances: { InstanceGroups: unknown[] } };
    const { JobFlowId } = await launcher.send(
      new RunJobFlowCommand(clickstream('2026-03-06', configuration.Instances)),
    );
    await face.advance(8 * hour);
    const runs = await processedRuns(projectId, 2);
    const next = runs.find((run) => run.id !== kept?.id);
    expect(next?.status).toBe('SUCCESS');
    if (recommendation.decision?.action === 'change') {
      // a change is paid for by the run that follows it: its launch costs no more than the kept shape's
      expect(next?.cost?.totalUsd).toBeLessThanOrEqual(keptCost * 1.02);
    } else {
      // kept: the launch is the same cluster (its cost differs by the step's own runtime noise only)
      const launched = await launcher.send(new ListInstanceGroupsCommand({ ClusterId: JobFlowId }));
      expect(
        launched.InstanceGroups?.map((group) => [
          group.InstanceGroupType,
          group.RequestedInstanceCount,
        ]).sort(),
      ).toEqual([
        ['CORE', 3],
        ['MASTER', 1],
        ['TASK', 4],
      ]);
      expect(Math.abs(predicted / keptCost - 1)).toBeLessThan(0.05);
    }
    // most of a launch is outside the Spark application (provisioning, bootstrap, termination): the run
    // records that part, and the explanation states the figure and the overhead it includes
    expect(kept?.cost?.overhead?.seconds).toBeGreaterThan(8 * 60);
    expect(kept?.cost?.overhead?.usd).toBeGreaterThan(0.3 * keptCost);
    expect(recommendation.explanation).toContain(`at $${predicted.toFixed(2)}`);
    expect(recommendation.explanation).toMatch(/billed \d+\.\d min outside the Spark application/);
  });

  it('auto-applies the optimizer’s own smaller shape to an over-provisioned cluster, once a week', async () => {
    const { JobFlowId } = await launcher.send(new RunJobFlowCommand(overProvisioned));
    const clusterId = JobFlowId as string;
    await face.advance(12 * hour);
    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['hourly-report'],
      group_by: 'step-name',
      since_days: 30,
      collect_history: false,
      settings: { slaMinutes: 120, autoApply: true, preference: 'economy' },
    });
    expect(imported.body.projects[0]).toMatchObject({ cluster_id: clusterId, queued_runs: 0 });
    const projectId = imported.body.projects[0]?.id as string;

    // only the schedule collects the cluster's steps; each run's recommendation may auto-apply
    const applied = await eventually(
      async () => (await server.services.applies.history(projectId)).find((c) => c.kind === 'auto-apply'),
      'an automatic resize',
      300_000,
    );
    await processedRuns(projectId, 4);
    await settled(projectId);

    const recommendation = await server.services.recommendations.get(
      projectId,
      applied.recommendationId as string,
    );
    // the optimizer's own choice, not an edited fixture: fewer task instances of the same type and market
    expect(recommendation.decision?.action).toBe('change');
    const groups = (
      recommendation.configuration as {
        Instances: { InstanceGroups: { InstanceRole: string; InstanceCount: number; Market: string }[] };
      }
    ).Instances.InstanceGroups;
    const task = groups.find((group) => group.InstanceRole === 'TASK');
    expect(task?.Market).toBe('SPOT');
    expect(task?.InstanceCount).toBeLessThan(seededTaskCount);
    expect(applied.configuration.actions).toContainEqual(
      expect.objectContaining({ kind: 'instance-group', from: seededTaskCount, to: task?.InstanceCount }),
    );
    expect(await taskCount(clusterId)).toBe(task?.InstanceCount);
    expect(applied).toMatchObject({ configuration: { clusterId }, actor: 'setpoint:auto-apply' });

    // the weekly cap (one here): later recommendations are made, none is written into the cluster
    const page = await server.services.recommendations.list(projectId, { limit: 20, offset: 0 });
    const changes = page.items.filter(
      (item) => item.state === 'SUCCESS' && item.decision?.action === 'change',
    );
    expect(changes.length).toBeGreaterThan(1);
    const history = await api<EmrAppliedConfigList>(
      'GET',
      `/api/v1/projects/${projectId}/emr/applied-configs`,
    );
    expect(history.body.items.map((item) => item.kind)).toEqual(['auto-apply']);
    expect(history.body.auto_apply_paused).toBe(false);
  });

  it('reverts the automatic resize after a failed step on it and pauses auto-apply', async () => {
    const integration = emrIntegrationOf(server.services);
    const [workload] = (await integration.store.workloads(accountId)).filter(
      (w) => w.key === 'hourly-report',
    );
    const projectId = workload?.projectId as string;
    const clusterId = workload?.clusterId as string;
    const [applied] = await server.services.applies.history(projectId);
    const shrunk = await taskCount(clusterId);
    expect(shrunk).toBeLessThan(seededTaskCount);

    // The revert's resize is written and its answer lost, on every one of the SDK's tries: the first revert
    // attempt fails after the cluster changed. The queued revert is tried again and records what was written.
    const lostAnswer = emulator.context.faults.add({
      kind: 'http',
      match: 'POST /ElasticMapReduce.ModifyInstanceGroups',
      status: 500,
      afterHandler: true,
      count: 4,
    });
    // the next hourly step fails on the resized cluster (a heavier sort runs out of memory on it)
    const { StepIds } = await launcher.send(
      new AddJobFlowStepsCommand({
        JobFlowId: clusterId,
        Steps: [sparkStep('hourly-report 2026-03-06T05:00', 'spill-heavy-sort.py', 'CONTINUE')],
      }),
    );
    await face.advance(4 * hour);

    const revert = await eventually(
      async () => (await server.services.applies.history(projectId)).find((c) => c.kind === 'revert'),
      'the revert',
      300_000,
    );
    expect(revert).toMatchObject({ undoes: applied?.id, actor: 'setpoint', configuration: { clusterId } });
    // every SDK try of the first attempt failed; the revert is recorded once, by a later attempt
    expect(lostAnswer.applied).toBe(4);
    emulator.context.faults.remove(lostAnswer.id);
    expect(revert.reason).toMatch(
      new RegExp(`^reverted: step ${StepIds?.[0]} failed on the new configuration`),
    );
    expect(await taskCount(clusterId)).toBe(seededTaskCount);
    const [failedRun] = (await processedRuns(projectId, 5)).filter((run) =>
      run.externalRunId.endsWith(`:${StepIds?.[0]}`),
    );
    expect(failedRun?.status).toBe('FAILED');

    await settled(projectId);
    const history = await api<EmrAppliedConfigList>(
      'GET',
      `/api/v1/projects/${projectId}/emr/applied-configs`,
    );
    expect(history.body.items.map((item) => item.kind)).toEqual(['auto-apply', 'revert']);
    expect(history.body.auto_apply_paused).toBe(true);
    expect(history.body.pause_reason).toMatch(/^reverted: step s-[A-Z0-9]+ failed/);
    // the same rule and audit row as on Databricks: the service paused it when the platform reported the revert
    const paused = await server.services.audit.page({ projectId, action: 'auto_apply_paused' }, 10, 0);
    expect(paused.rows).toHaveLength(1);
    expect(paused.rows[0]).toMatchObject({
      actor: 'setpoint',
      detail: { platform: 'emr', cause: 'revert', reason: revert.reason },
    });

    // paused: a ready recommendation is not written into the cluster until someone resumes auto-apply
    const latest = await server.services.recommendations.latest(projectId);
    await server.services.applies.recommendationReady(projectId, latest.id);
    await settled(projectId);
    expect((await server.services.applies.history(projectId)).map((c) => c.kind)).toEqual([
      'auto-apply',
      'revert',
    ]);
    expect(await taskCount(clusterId)).toBe(seededTaskCount);

    // a person resumes it: audited, and the pause is gone from the history's answer
    const resumed = await api('POST', `/api/v1/projects/${projectId}/emr/resume-auto-apply`, {});
    expect(resumed.status).toBe(200);
    const after = await api<EmrAppliedConfigList>('GET', `/api/v1/projects/${projectId}/emr/applied-configs`);
    expect(after.body).toMatchObject({ auto_apply_paused: false, pause_reason: null });
    const trail = await server.services.audit.page({ projectId, action: 'auto_apply_resumed' }, 10, 0);
    expect(trail.rows[0]).toMatchObject({ detail: { platform: 'emr' } });
  });
});
