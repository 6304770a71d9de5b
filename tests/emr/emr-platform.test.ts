import {
  AddJobFlowStepsCommand,
  type EMRClient,
  GetManagedScalingPolicyCommand,
  ListInstanceGroupsCommand,
  RunJobFlowCommand,
  type RunJobFlowCommandInput,
} from '@aws-sdk/client-emr';
import {
  type AppliedConfigListResource,
  type ApprovalResource,
  type FormFactorAdviceResource,
  formFactorAdviceSchema,
  type RollbackResource,
} from '@setpoint/api-contract';
import type {
  EmrAccountResource,
  EmrAppliedConfigList,
  EmrApplyResource,
  EmrDiscoverResource,
  EmrImportResource,
  EmrRollbackResource,
} from '@setpoint/api-contract/emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { S3Client } from '@setpoint/foundation/s3';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually, insertRecommendation } from '../databricks/integration-harness.js';
import { usdOf } from '../support/run-costs.js';
import { type S3TestServer, startS3FaultProxy } from '../support/s3-test-server.js';
import { settledRecommendation } from '../support/settled-recommendation.js';
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
        { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.2xlarge', InstanceCount: 6 },
      ],
    },
    Steps: [
      {
        Name: 'orders-etl',
        HadoopJarStep: {
          Jar: 'command-runner.jar',
          Args: ['spark-submit', '--deploy-mode', 'cluster', 's3://jobs/join-heavy-etl.py'],
        },
      },
    ],
  };
}

const sessionsStep = (at: string) => ({
  Name: `hourly-sessions ${at}`,
  HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', 's3://jobs/many-small-jobs.py'] },
});

/** A long-running cluster sized once for a peak long gone: 2 core and `task` spot task instances of c5.xlarge. */
function longRunning(
  name: string,
  task: number,
  steps: RunJobFlowCommandInput['Steps'],
): RunJobFlowCommandInput {
  return {
    ...nightly(name),
    Name: name,
    Tags: [],
    Instances: {
      KeepJobFlowAliveWhenNoSteps: true,
      InstanceGroups: [
        { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
        { InstanceRole: 'CORE', InstanceType: 'c5.xlarge', InstanceCount: 2 },
        { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'c5.xlarge', InstanceCount: task },
      ],
    },
    Steps: steps,
  };
}

describe('EMR as a Setpoint platform (emulator, SQLite)', () => {
  let face: EmrFace;
  let s3Server: S3TestServer;
  let emulator: RunningEmulator;
  let server: RunningServer;
  let launcher: EMRClient;
  let token: string;
  let accountId: string;
  /** The long-running cluster the resize test imported, with its project and recommendation. */
  let resized: { projectId: string; clusterId: string; configuration: Record<string, unknown> } | undefined;

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

  beforeAll(async () => {
    face = await startEmrFace(5, keys);
    ({ s3Server, emulator, launcher } = face);
    server = await startSetpointForEmr('emr');
    ({ token, api } = await signedInApi(server, 'emr-test'));

    for (const date of ['2026-03-02', '2026-03-03', '2026-03-04']) {
      await launcher.send(new RunJobFlowCommand(nightly(date)));
      emulator.context.clock.advance(8 * hour);
    }
    emulator.emr.catchUp();
    await emulator.emr.logsWritten();
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await face?.close();
  });

  it('refuses a bad account with a 400 and a JSON error naming the field', async () => {
    const badRegion = await api<{ error: { message: string } }>('POST', '/api/v1/emr/accounts', {
      name: 'x',
      region: 'mars-1',
      credentials: { kind: 'default-chain' },
    });
    expect(badRegion.status).toBe(400);
    expect(JSON.stringify(badRegion.body)).toMatch(/region/);
    const badRole = await api('POST', '/api/v1/emr/accounts', {
      name: 'x',
      region: 'us-east-1',
      credentials: { kind: 'assume-role', role_arn: 'setpoint-role' },
    });
    expect(badRole.status).toBe(400);
    expect(JSON.stringify(badRole.body)).toMatch(/role ARN looks like/);
  });

  it('connects an account whose secrets are stored sealed and never shown', async () => {
    const created = await api<EmrAccountResource>(
      'POST',
      '/api/v1/emr/accounts',
      emrAccountRequest(face, keys, 'analytics prod'),
    );
    expect(created.status).toBe(201);
    accountId = created.body.id;
    expect(created.body).toMatchObject({
      credential_kind: 'access-keys',
      access_key_id_hint: '…0000',
      has_log_store_keys: true,
      endpoint: emulator.url,
      grouping: { kind: 'tag', key: 'setpoint:project-id' },
    });
    const listed = await api<{ items: EmrAccountResource[] }>('GET', '/api/v1/emr/accounts');
    expect(listed.body.items.map((account) => account.id)).toEqual([accountId]);

    const everything = JSON.stringify([created.body, listed.body]);
    expect(everything).not.toContain(keys.secretAccessKey);
    expect(everything).not.toContain(keys.accessKeyId);
    const rows = await server.services.store.db.selectFrom('workspaces').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(keys.secretAccessKey);
    expect(rows.find((row) => row.id === accountId)).toMatchObject({ platform: 'emr', cloud: 'aws' });

    const role = await api<EmrAccountResource>('POST', '/api/v1/emr/accounts', {
      name: 'via role',
      region: 'eu-west-1',
      credentials: {
        kind: 'assume-role',
        role_arn: 'arn:aws:iam::123456789012:role/setpoint',
        external_id: 'acme-external-id',
      },
    });
    expect(role.body).toMatchObject({
      credential_kind: 'assume-role',
      role_arn: 'arn:aws:iam::123456789012:role/setpoint',
      has_external_id: true,
      access_key_id_hint: null,
    });
    expect(JSON.stringify(role.body)).not.toContain('acme-external-id');
    expect((await api('DELETE', `/api/v1/emr/accounts/${role.body.id}`)).status).toBe(204);
    expect((await api('GET', `/api/v1/emr/accounts/${role.body.id}`)).status).toBe(404);
  });

  it('checks the account’s permissions, one line each', async () => {
    const checked = await api<{ ok: boolean; checks: { permission: string; status: string }[] }>(
      'POST',
      `/api/v1/emr/accounts/${accountId}/check`,
      {},
    );
    expect(checked.status).toBe(200);
    expect(checked.body.ok).toBe(true);
    expect(checked.body.checks.map((check) => check.permission)).toEqual(
      expect.arrayContaining([
        'elasticmapreduce:ListInstances',
        's3:GetObject',
        'elasticmapreduce:PutManagedScalingPolicy',
      ]),
    );
    expect(checked.body.checks.every((check) => check.status === 'held')).toBe(true);
  });

  it('flows a discovered workload trigger → collect → parse → cost → model → recommendation', async () => {
    const discovered = await api<EmrDiscoverResource>(
      'GET',
      `/api/v1/emr/accounts/${accountId}/discover?since_days=30`,
    );
    expect(discovered.status).toBe(200);
    const orders = discovered.body.workloads.find((workload) => workload.key === 'orders');
    expect(orders).toMatchObject({ recurring: true, project_id: null, long_running_cluster_id: null });
    expect(orders?.runs).toHaveLength(3);

    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['orders', 'no-such-workload'],
      since_days: 30,
      settings: { slaMinutes: 240 },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.missing).toEqual(['no-such-workload']);
    const project = imported.body.projects[0];
    expect(project).toMatchObject({ workload: 'orders', cluster_id: null, created: true, queued_runs: 3 });
    const projectId = project?.id as string;

    const runs = await processedRuns(projectId, 3);
    for (const run of runs) {
      expect(run).toMatchObject({ pipelineState: 'DONE', status: 'SUCCESS' });
      expect(run.externalRunId).toMatch(/^j-[A-Z0-9]+:s-[A-Z0-9]+$/);
      expect(run.clusterFacts).toMatchObject({
        cloud: 'aws',
        nodeTypeId: 'r5.2xlarge',
        driverNodeTypeId: 'm5.xlarge',
      });
      const cost = run.cost ?? { components: [] };
      expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeGreaterThan(0);
      expect(usdOf(cost, 'compute')).toBeGreaterThan(usdOf(cost, 'platform_fee', 'emr_fee'));
    }
    const recommendation = await settledRecommendation(server.services.recommendations, projectId);
    expect(recommendation.state).toBe('SUCCESS');
    expect(recommendation.configuration).toHaveProperty('Instances.InstanceGroups');

    // the same import again keeps the project and queues nothing new
    const again = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['orders'],
      since_days: 30,
    });
    expect(again.body.projects[0]).toMatchObject({ id: projectId, created: false, queued_runs: 0 });

    // a transient workload has no running cluster to resize: the next launch takes the recommendation
    const refused = await api<{ error: { code: string; message: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/emr/apply`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('EMR_TRANSIENT_WORKLOAD');

    const exported = await server.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/emr/export?format=json`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.json()).toMatchObject({
      project: projectId,
      recommendation: recommendation.id,
      run_job_flow: recommendation.configuration,
    });
    const terraform = await server.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/emr/export?format=terraform`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(terraform.body).toMatch(/resource "aws_emr_cluster" "orders"/);
    expect(terraform.body).toMatch(/ignore_changes/);
    // the deprecated /emr/ aliases answer what the routes of every platform answer (export: JSON by default)
    const shared = await server.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/export`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(shared.headers['content-type']).toMatch(/^application\/json/);
    expect(shared.body).toBe(exported.body);
    const history = await api<{ items: unknown[]; auto_apply_paused: boolean }>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    expect(history.body).toEqual({
      items: [],
      writer: 'launcher',
      auto_apply_paused: false,
      pause_reason: null,
    });

    // form factor: the workload on EMR Serverless, estimated from its own event logs at the published prices
    const formFactor = await api<FormFactorAdviceResource>(
      'GET',
      `/api/v1/projects/${projectId}/form-factor`,
    );
    expect(formFactor.status).toBe(200);
    const advice = formFactorAdviceSchema.parse(formFactor.body);
    expect(advice).toMatchObject({
      from: 'classic',
      to: 'serverless',
      change: 'EMR on EC2 → EMR Serverless',
    });
    expect(advice.estimate?.kind).toBe('evidence');
    const range = advice.estimate?.usd_per_run ?? { low: 0, mid: 0, high: 0 };
    expect(range.low).toBeGreaterThan(0);
    expect(range.low).toBeLessThanOrEqual(range.mid);
    expect(range.mid).toBeLessThanOrEqual(range.high);
    const costs = runs.map((run) => run.cost?.totalUsd ?? 0).sort((a, b) => a - b);
    expect(advice.current_usd_per_run).toBeCloseTo(costs[1] as number, 9);
    expect(advice.basis.join('\n')).toMatch(/3 successful runs of this job on EMR on EC2/);
    expect(advice.basis.join('\n')).toMatch(/\$0\.052624 per vCPU-hour/);
    expect(advice.explanation).toMatch(/on EMR Serverless/);
    // the verdict follows the rules: 10 % saved and P(runtime <= SLA) >= 0.9, else stay
    const share = (advice.saving_usd_per_run ?? 0) / (advice.current_usd_per_run ?? 1);
    expect(advice.verdict).toBe(share >= 0.1 && (advice.probability_meets_sla ?? 0) >= 0.9 ? 'move' : 'stay');
    expect(advice.proposal === null).toBe(advice.verdict !== 'move');
  });

  it('reconciliation collects a new run of an imported workload that nobody announced', async () => {
    const integration = emrIntegrationOf(server.services);
    const [workload] = await integration.store.workloads(accountId);
    const projectId = workload?.projectId as string;
    const { JobFlowId } = await launcher.send(new RunJobFlowCommand(nightly('2026-03-05')));
    await face.advance(8 * hour);

    await integration.reconcile(accountId);
    const runs = await processedRuns(projectId, 4);
    expect(runs.some((run) => run.externalRunId.startsWith(`${JobFlowId}:`))).toBe(true);
    expect((await integration.accounts.get(accountId)).lastReconciledAt).not.toBeNull();
  });

  it('resizes an over-provisioned long-running cluster to the optimizer’s recommendation, records it, and rolls it back', async () => {
    // sized once for a peak long gone: 2 core and 22 spot task instances for hourly steps of small jobs
    const { JobFlowId } = await launcher.send(
      new RunJobFlowCommand(
        longRunning(
          'shared-etl',
          22,
          ['01', '02', '03', '04'].map((at) => sessionsStep(`2026-03-06T${at}:00`)),
        ),
      ),
    );
    const clusterId = JobFlowId as string;
    await face.advance(12 * hour);

    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['hourly-sessions'],
      group_by: 'step-name',
      since_days: 30,
      settings: { slaMinutes: 120, preference: 'economy' },
    });
    expect(imported.body.projects[0]).toMatchObject({
      workload: 'hourly-sessions',
      cluster_id: clusterId,
      queued_runs: 4,
    });
    const projectId = imported.body.projects[0]?.id as string;
    // past the learning runs: the recommendation judges the cluster rather than exploring
    await processedRuns(projectId, 4);
    const recommendation = await settledRecommendation(server.services.recommendations, projectId);
    expect(recommendation.state).toBe('SUCCESS');
    const taskCount = async () =>
      (await launcher.send(new ListInstanceGroupsCommand({ ClusterId: clusterId }))).InstanceGroups?.find(
        (group) => group.InstanceGroupType === 'TASK',
      )?.RequestedInstanceCount;

    // the optimizer's own choice: the same types, core and market, fewer task instances
    expect(recommendation.decision?.action).toBe('change');
    const recommendedTask = (
      recommendation.configuration as {
        Instances: { InstanceGroups: { InstanceRole: string; InstanceCount: number; Market: string }[] };
      }
    ).Instances.InstanceGroups.find((group) => group.InstanceRole === 'TASK');
    expect(recommendedTask?.Market).toBe('SPOT');
    const wantedTask = recommendedTask?.InstanceCount as number;
    expect(wantedTask).toBeLessThan(22);
    expect(recommendation.prediction?.costUsd?.mid).toBeLessThan(
      (await server.services.runs.list(projectId, { limit: 1, offset: 0 })).items[0]?.cost?.totalUsd ?? 0,
    );
    const applied = await api<EmrApplyResource>('POST', `/api/v1/projects/${projectId}/emr/apply`, {
      recommendation_id: recommendation.id,
    });
    expect(applied.status).toBe(200);
    expect(applied.body.actions).toEqual([
      { kind: 'instance-group', instance_group_id: expect.stringMatching(/^ig-/), from: 22, to: wantedTask },
    ]);
    expect(applied.body.config).toMatchObject({
      kind: 'apply',
      cluster_id: clusterId,
      recommendation_id: recommendation.id,
    });
    expect(await taskCount()).toBe(wantedTask);

    const history = await api<EmrAppliedConfigList>(
      'GET',
      `/api/v1/projects/${projectId}/emr/applied-configs`,
    );
    expect(history.body.items.map((item) => item.kind)).toEqual(['apply']);
    expect(history.body.auto_apply_paused).toBe(false);
    // the one history of every platform holds the same change, in EMR's words
    const shared = await api<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    expect(shared.body.items).toEqual([
      expect.objectContaining({
        id: applied.body.config?.id,
        kind: 'apply',
        platform: 'emr',
        cluster: { cluster_id: clusterId, actions: applied.body.actions },
        summary: expect.stringMatching(
          new RegExp(`^cluster ${clusterId}: ig-\\S+: 22 → ${wantedTask} instances$`),
        ),
        undoes: null,
      }),
    ]);

    const rolledBack = await api<EmrRollbackResource>(
      'POST',
      `/api/v1/projects/${projectId}/emr/rollback`,
      {},
    );
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.undone).toHaveLength(1);
    expect(rolledBack.body.undone[0]).toMatchObject({ kind: 'rollback', undoes: applied.body.config?.id });
    expect(await taskCount()).toBe(22);
    // the rollback is in the audit trail: who, which change it undid, the task group back to 22
    const trail = await api<{ items: { action: string; actor: string; detail: Record<string, unknown> }[] }>(
      'GET',
      `/api/v1/audit?action=rollback&project_id=${projectId}`,
    );
    expect(trail.status).toBe(200);
    expect(trail.body.items).toHaveLength(1);
    expect(trail.body.items[0]).toMatchObject({
      action: 'rollback',
      actor: expect.stringMatching(/^api-key:/),
      detail: {
        platform: 'emr',
        from_config: applied.body.config?.id,
        to_config: null,
        changes: [{ what: expect.stringMatching(/^task group ig-/), from: wantedTask, to: 22 }],
        summary: expect.stringMatching(new RegExp(`^task group ig-\\S+: ${wantedTask} → 22$`)),
      },
    });
    const exported = await server.app.inject({
      method: 'GET',
      url: `/api/v1/audit/export?action=rollback&project_id=${projectId}&format=csv`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toMatch(/rollback/);
    expect(exported.body).toContain(`: ${wantedTask} → 22`);
    const nothingLeft = await api<{ error: { code: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/emr/rollback`,
      {},
    );
    expect(nothingLeft.status).toBe(404);
    // a person's rollback pauses auto-apply until someone resumes it
    const afterRollback = await api<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    expect(afterRollback.body).toMatchObject({
      auto_apply_paused: true,
      pause_reason: expect.stringMatching(/^rolled back by api-key:/),
    });
    expect((await api('POST', `/api/v1/projects/${projectId}/resume-auto-apply`)).status).toBe(200);

    // someone else resizes after Setpoint: the next auto-apply is refused and auto-apply pauses
    await api('POST', `/api/v1/projects/${projectId}/emr/apply`, { recommendation_id: recommendation.id });
    const integration = emrIntegrationOf(server.services);
    const client = (await integration.connect(accountId)).client;
    const task = (await client.listInstanceGroups(clusterId)).find(
      (group) => group.InstanceGroupType === 'TASK',
    );
    await client.modifyInstanceGroupCount(
      clusterId,
      task?.Id as string,
      (task?.RequestedInstanceCount ?? 0) + 1,
    );
    await expect(
      server.services.applies.apply(projectId, recommendation.id, {
        actor: 'setpoint:auto-apply',
        kind: 'auto-apply',
      }),
    ).rejects.toMatchObject({ code: 'EXTERNAL_CHANGE' });
    const paused = await api<EmrAppliedConfigList>(
      'GET',
      `/api/v1/projects/${projectId}/emr/applied-configs`,
    );
    expect(paused.body.auto_apply_paused).toBe(true);
    expect(paused.body.pause_reason).toMatch(/changed outside Setpoint/);
    resized = { projectId, clusterId, configuration: recommendation.configuration ?? {} };
  });

  it('never sends or exports a request EMR would refuse, and names the rule', async () => {
    if (!resized) throw new Error('the resize test did not import its cluster');
    const { projectId, clusterId } = resized;
    // managed-scaling limits in fleet units for a cluster of instance groups: EMR refuses the policy
    const configuration = {
      ...resized.configuration,
      ManagedScalingPolicy: {
        ComputeLimits: { UnitType: 'InstanceFleetUnits', MinimumCapacityUnits: 2, MaximumCapacityUnits: 6 },
      },
    };
    await insertRecommendation(server, projectId, 'rec_fleet_units', configuration, 'fleet units on groups');
    const groupsBefore = (await launcher.send(new ListInstanceGroupsCommand({ ClusterId: clusterId })))
      .InstanceGroups;
    const scalingBefore = (await launcher.send(new GetManagedScalingPolicyCommand({ ClusterId: clusterId })))
      .ManagedScalingPolicy;
    const { applies } = server.services;
    const history = await applies.history(projectId);
    await expect(
      applies.apply(projectId, 'rec_fleet_units', { actor: 'test', kind: 'apply' }),
    ).rejects.toMatchObject({
      code: 'EMR_REQUEST_INVALID',
      message: expect.stringContaining(
        'PutManagedScalingPolicy: compute-limits: UnitType InstanceFleetUnits does not apply to an INSTANCE_GROUP cluster. [ManagedScalingPolicy.ComputeLimits.UnitType]',
      ),
    });
    expect(await applies.history(projectId)).toEqual(history);
    expect(
      (await launcher.send(new ListInstanceGroupsCommand({ ClusterId: clusterId }))).InstanceGroups?.map(
        (group) => [group.Id, group.RequestedInstanceCount],
      ),
    ).toEqual(groupsBefore?.map((group) => [group.Id, group.RequestedInstanceCount]));
    expect(
      (await launcher.send(new GetManagedScalingPolicyCommand({ ClusterId: clusterId })))
        .ManagedScalingPolicy,
    ).toEqual(scalingBefore);

    // the launch request an export hands to the next cluster is refused the same way, in both formats
    for (const format of ['json', 'terraform'] as const) {
      const exported = await api<{ error: { code: string; message: string } }>(
        'GET',
        `/api/v1/projects/${projectId}/export?format=${format}&recommendation=rec_fleet_units`,
      );
      expect(exported.status).toBe(400);
      expect(exported.body.error).toMatchObject({
        code: 'EMR_REQUEST_INVALID',
        message: expect.stringContaining('RunJobFlow: compute-limits: UnitType InstanceFleetUnits'),
      });
    }
    // Setpoint sent none of it: the emulated account refused nothing
    const refusals = (await (
      await fetch(`${emulator.url}/emulator/admin/refusals`, {
        headers: { authorization: `Bearer ${emulator.token}` },
      })
    ).json()) as { refusals: unknown[] };
    expect(refusals.refusals).toEqual([]);
  });

  // The import queues both steps at once and they are processed concurrently: whichever recommendation is made
  // last, the project's newest is one learned from both steps (tests/service/recommendation-race.test.ts).
  it('applies the optimizer’s change on its own in approve-learning, holds a learning resize until approved, and rolls back to the newest size that met the SLA', async () => {
    const { JobFlowId } = await launcher.send(
      new RunJobFlowCommand(
        longRunning(
          'shared-rollups',
          12,
          ['01', '02'].map((at) => ({ ...sessionsStep(at), Name: `daily-rollups 2026-03-07T${at}:00` })),
        ),
      ),
    );
    const clusterId = JobFlowId as string;
    await face.advance(4 * hour);
    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['daily-rollups'],
      group_by: 'step-name',
      since_days: 30,
      // at most 8 workers: the 14 of the cluster as sized must shrink (its task group, on a long-running cluster)
      settings: { slaMinutes: 120, maxWorkers: 8, applyMode: 'approve-learning' },
    });
    expect(imported.body.projects[0]).toMatchObject({ cluster_id: clusterId, queued_runs: 2 });
    const projectId = imported.body.projects[0]?.id as string;
    const taskCount = async () =>
      (await launcher.send(new ListInstanceGroupsCommand({ ClusterId: clusterId }))).InstanceGroups?.find(
        (group) => group.InstanceGroupType === 'TASK',
      )?.RequestedInstanceCount;
    /** Waits for the task group to reach a size; on a timeout, the parked jobs say why. */
    const taskCountReaches = async (wanted: number, what: string) => {
      try {
        await eventually(async () => ((await taskCount()) === wanted ? true : undefined), what, 120_000);
      } catch (error) {
        const parked = await api<{ items: unknown[] }>('GET', '/api/v1/jobs/parked');
        throw new Error(`${(error as Error).message}; parked jobs: ${JSON.stringify(parked.body.items)}`);
      }
    };

    // the optimizer's recommendation after the two steps shrinks the task group: an optimizing change (the
    // bound forces it, no learning run), so it is applied on its own and nothing waits
    await processedRuns(projectId, 2);
    const optimizing = await settledRecommendation(server.services.recommendations, projectId);
    expect(optimizing.decision).toMatchObject({ action: 'change', learning: { active: false } });
    const groupsOf = (configuration: unknown) =>
      (configuration as { Instances: { InstanceGroups: Record<string, unknown>[] } }).Instances
        .InstanceGroups;
    const optimizedTask = groupsOf(optimizing.configuration).find((group) => group.InstanceRole === 'TASK')
      ?.InstanceCount as number;
    expect(optimizedTask).toBeLessThanOrEqual(6);
    await taskCountReaches(optimizedTask, 'the optimizing resize');
    expect(
      (await api<{ items: ApprovalResource[] }>('GET', `/api/v1/approvals?project_id=${projectId}`)).body
        .items,
    ).toEqual([]);

    // a learning run of the optimizer's shape (another task count) waits; approved, it is written once
    const shape = (task: number) => ({
      Instances: {
        InstanceGroups: groupsOf(optimizing.configuration).map((group) =>
          group.InstanceRole === 'TASK' ? { ...group, InstanceCount: task } : group,
        ),
      },
    });
    const learningTask = optimizedTask === 0 ? 1 : optimizedTask - 1;
    await insertRecommendation(
      server,
      projectId,
      'rec_emr_probe',
      shape(learningTask),
      'a learning run: one task instance less',
      { action: 'change', learning: { active: true, run: 3, maxRuns: 8, missesSpent: 0, missBudget: 0 } },
    );
    await server.services.applies.recommendationReady(projectId, 'rec_emr_probe');
    const waiting = await api<{ items: ApprovalResource[] }>(
      'GET',
      `/api/v1/approvals?project_id=${projectId}`,
    );
    expect(waiting.body.items.map((item) => item.recommendation_id)).toEqual(['rec_emr_probe']);
    expect(await taskCount()).toBe(optimizedTask);
    const approved = await api<ApprovalResource>(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/rec_emr_probe/approve`,
    );
    expect(approved.status).toBe(202);
    await taskCountReaches(learningTask, 'the approved resize');
    const history = await api<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${projectId}/applied-configs`,
    );
    expect(history.body.writer).toBe('setpoint');
    const approvedEntry = history.body.items.at(-1);
    expect(approvedEntry).toMatchObject({
      kind: 'auto-apply',
      recommendation_id: 'rec_emr_probe',
      platform: 'emr',
    });
    expect(approvedEntry?.reason).toMatch(/^learning run approved by api-key:/);
    expect(history.body.items.filter((item) => item.recommendation_id === 'rec_emr_probe')).toHaveLength(1);

    // a step on that size meets the SLA; then a person applies another size
    await api('PATCH', `/api/v1/projects/${projectId}`, { settings: { applyMode: 'manual' } });
    await launcher.send(
      new AddJobFlowStepsCommand({
        JobFlowId: clusterId,
        Steps: [{ ...sessionsStep('03'), Name: 'daily-rollups 2026-03-07T03:00' }],
      }),
    );
    await face.advance(4 * hour);
    await emrIntegrationOf(server.services).reconcile(accountId);
    const metSla = await eventually(async () => {
      const entries = (await server.services.applies.history(projectId)).filter((entry) => entry.metSlaAt);
      return entries.length > 0 ? entries : undefined;
    }, 'the step on the approved size to meet the SLA');
    expect(metSla.map((entry) => entry.id)).toEqual([approvedEntry?.id]);
    const otherTask = learningTask + 2;
    await insertRecommendation(
      server,
      projectId,
      'rec_emr_other',
      shape(otherTask),
      'two more task instances',
    );
    const other = await server.services.applies.apply(projectId, 'rec_emr_other', {
      actor: 'test',
      kind: 'apply',
    });
    expect(await taskCount()).toBe(otherTask);

    // rollback lands on the newest size that met the SLA, not the cold start, and pauses auto-apply
    const rolledBack = await api<RollbackResource>('POST', `/api/v1/projects/${projectId}/rollback`, {});
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.undone.map((entry) => entry.undoes)).toEqual([other.change?.id]);
    expect(rolledBack.body).toMatchObject({
      auto_apply_paused: true,
      pause_reason: expect.stringMatching(/^rolled back by api-key:/),
    });
    expect(await taskCount()).toBe(learningTask);
    const trail = await api<{ items: { detail: { to_config: string | null } }[] }>(
      'GET',
      `/api/v1/audit?action=rollback&project_id=${projectId}`,
    );
    expect(trail.body.items.map((entry) => entry.detail.to_config)).toEqual([approvedEntry?.id]);
  });

  it('queues the collection of one step for a project and says when its logs stayed on HDFS', async () => {
    const { JobFlowId } = await launcher.send(
      new RunJobFlowCommand({ ...nightly('hdfs'), Name: 'daily-agg', Tags: [], Configurations: [] }),
    );
    await face.advance(8 * hour);
    const project = await server.services.projects.create(
      { name: 'airflow daily-agg', workspaceId: accountId },
      'test',
    );
    const steps = [];
    for await (const step of (await emrIntegrationOf(server.services).connect(accountId)).client.listSteps(
      JobFlowId as string,
    ))
      steps.push(step);
    const queued = await api<{ queued: boolean }>('POST', `/api/v1/projects/${project.id}/emr-runs`, {
      cluster_id: JobFlowId,
      step_id: steps[0]?.Id,
    });
    expect(queued).toMatchObject({ status: 202, body: { queued: true, account_id: accountId } });
    const [run] = await processedRuns(project.id, 1);
    expect(run).toMatchObject({ status: 'INCOMPLETE', pipelineState: 'FAILED' });
    expect(run?.error).toMatch(/hdfs:\/\/\/var\/log\/spark\/apps.*spark\.eventLog\.dir/);

    const bad = await api<{ error: { message: string } }>('POST', `/api/v1/projects/${project.id}/emr-runs`, {
      cluster_id: 'cluster-1',
      step_id: 's-1',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/cluster id looks like/);
  });

  it('parks a step whose event log another cluster wrote under the same application id, and says so', async () => {
    // two clusters sharing one spark.eventLog.dir; the second's log replaces the first's under the
    // first's application id, as when two resource managers start in the same millisecond
    const launch = async (name: string) => {
      const { JobFlowId } = await launcher.send(
        new RunJobFlowCommand({ ...nightly(name), Name: name, Tags: [] }),
      );
      return JobFlowId as string;
    };
    const mine = await launch('collide-mine');
    const other = await launch('collide-other');
    await face.advance(8 * hour);
    const client = (await emrIntegrationOf(server.services).connect(accountId)).client;
    const applicationOf = (clusterId: string) =>
      emulator.emr.cluster(clusterId).steps[0]?.applicationId as string;
    const [mineApp, otherApp] = [applicationOf(mine), applicationOf(other)];
    expect(mineApp).not.toBe(otherApp);
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: s3Server.endpoint,
      credentials: s3Server.credentials,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of await s3.getObject('spark-events', `apps/${otherApp}`))
      chunks.push(Buffer.from(chunk));
    await s3.putObject(
      'spark-events',
      `apps/${mineApp}`,
      Buffer.concat(chunks).toString('utf8').replaceAll(otherApp, mineApp),
    );

    const project = await server.services.projects.create(
      { name: 'collide', workspaceId: accountId },
      'test',
    );
    const steps = [];
    for await (const step of client.listSteps(mine)) steps.push(step);
    await api('POST', `/api/v1/projects/${project.id}/emr-runs`, { cluster_id: mine, step_id: steps[0]?.Id });
    const [run] = await processedRuns(project.id, 1);
    expect(run?.pipelineState).toBe('FAILED');
    expect(run?.error).toMatch(new RegExp(`none of cluster ${mine}'s instances.*own spark\\.eventLog\\.dir`));
    // parked at once, visibly: bad input fails the same way on every retry
    const parked = await api<{ items: Array<{ kind: string; error: string; attempts: number }> }>(
      'GET',
      '/api/v1/jobs/parked',
    );
    const parse = parked.body.items.find(
      (job) => job.kind === 'run.parse' && /none of cluster/.test(job.error),
    );
    expect(parse?.attempts).toBe(1);
  });

  it('parks at once a step whose log bucket refuses Setpoint’s keys, naming the object', async () => {
    // the account reads its logs through a proxy that answers 403 AccessDenied for the log bucket
    const proxy = await startS3FaultProxy(s3Server.endpoint);
    try {
      const created = await api<EmrAccountResource>(
        'POST',
        '/api/v1/emr/accounts',
        emrAccountRequest(face, keys, 'logs refused', proxy.endpoint),
      );
      expect(created.status).toBe(201);
      const { JobFlowId } = await launcher.send(
        new RunJobFlowCommand({ ...nightly('refused'), Name: 'logs-refused', Tags: [] }),
      );
      await face.advance(8 * hour);
      const project = await server.services.projects.create(
        { name: 'logs refused', workspaceId: created.body.id },
        'test',
      );
      const steps = [];
      const { client } = await emrIntegrationOf(server.services).connect(created.body.id);
      for await (const step of client.listSteps(JobFlowId as string)) steps.push(step);
      proxy.answerError(/^\/emr-logs\//, Number.POSITIVE_INFINITY, 403, 'AccessDenied');
      const queued = await api('POST', `/api/v1/projects/${project.id}/emr-runs`, {
        cluster_id: JobFlowId,
        step_id: steps[0]?.Id,
      });
      expect(queued.status).toBe(202);
      const collect = await eventually(
        async () => {
          const parked = await api<{ items: Array<{ kind: string; error: string; attempts: number }> }>(
            'GET',
            '/api/v1/jobs/parked',
          );
          return parked.body.items.find(
            (job) => job.kind === 'emr.collect' && job.error.includes(`s3://emr-logs/logs/${JobFlowId}/`),
          );
        },
        'the refused collection to be parked',
        120_000,
      );
      expect(collect.error).toMatch(/stderr\.gz: access denied \(AccessDenied\)/);
      expect(collect.error).not.toContain(s3Server.credentials.secretAccessKey);
      // a refusal does not heal by retrying: one attempt, not SETPOINT_JOB_MAX_ATTEMPTS
      expect(collect.attempts).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
