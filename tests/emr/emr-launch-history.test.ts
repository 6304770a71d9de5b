import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RunJobFlowCommand, type RunJobFlowCommandInput } from '@aws-sdk/client-emr';
import type {
  AppliedConfigListResource,
  ApprovalResource,
  ProjectResource,
  RecommendationResource,
} from '@setpoint/api-contract';
import type { EmrImportResource } from '@setpoint/api-contract/emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { runCli } from '../support/run-cli.js';
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
const keys = { accessKeyId: 'AKIALAUNCHES0000', secretAccessKey: 'emulator-secret-launches' };
const launcherName = 'airflow:nightly.ledger';
type InstanceGroups = NonNullable<NonNullable<RunJobFlowCommandInput['Instances']>['InstanceGroups']>;

/** The team's own request: 1 primary and 3 core r5.2xlarge, as sized once by hand. */
const asWritten: InstanceGroups = [
  { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
  { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 3 },
];

/**
 * A transient cluster launched the way a team's scheduler launches it (AWS SDK v3 RunJobFlow): with the
 * project tag, and, when it took a recommendation, Setpoint's recommendation tag and the launcher's name.
 */
function launchRequest(
  name: string,
  groups: InstanceGroups,
  recommendationId: string | null,
  steps = 1,
): RunJobFlowCommandInput {
  return {
    Name: name,
    ReleaseLabel: 'emr-7.2.0',
    LogUri: 's3://emr-logs/logs/',
    Tags: [
      { Key: 'setpoint:project-id', Value: 'ledger' },
      ...(recommendationId
        ? [
            { Key: 'setpoint:recommendation-id', Value: recommendationId },
            { Key: 'setpoint:launched-by', Value: launcherName },
          ]
        : []),
    ],
    Configurations: [
      { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' } },
    ],
    Instances: { KeepJobFlowAliveWhenNoSteps: false, InstanceGroups: groups },
    Steps: Array.from({ length: steps }, () => ({
      Name: 'ledger-sort',
      HadoopJarStep: {
        Jar: 'command-runner.jar',
        Args: ['spark-submit', '--deploy-mode', 'cluster', 's3://jobs/daily-aggregation.py'],
      },
    })),
  };
}

/** A recommendation's instance groups, as the hook merges them into the request. */
const groupsOf = (recommendation: RecommendationResource) =>
  (recommendation.configuration as { Instances: { InstanceGroups: InstanceGroups } }).Instances
    .InstanceGroups;

describe('EMR launches that took a recommendation are its apply history (emulator, SQLite)', () => {
  let face: EmrFace;
  let emulator: RunningEmulator;
  let server: RunningServer;
  let accountId: string;
  let projectId: string;
  const cliEnv = { SETPOINT_HOME: mkdtempSync(path.join(tmpdir(), 'setpoint-emr-launches-cli-')) };

  let api: ApiCall;

  /** Launches a cluster, lets it run its steps to the end, and has Setpoint collect them; returns the cluster. */
  async function launchAndCollect(request: RunJobFlowCommandInput): Promise<string> {
    const { JobFlowId } = await face.launcher.send(new RunJobFlowCommand(request));
    const clusterId = JobFlowId as string;
    await face.advance(8 * hour);
    const integration = emrIntegrationOf(server.services);
    for (const step of emulator.emr.cluster(clusterId).steps)
      await integration.enqueueCollect(accountId, clusterId, step.id, projectId);
    return clusterId;
  }

  /** The recommendation made from the newest collected run of a cluster, once every step of it is processed. */
  async function recommendationAfter(clusterId: string): Promise<RecommendationResource> {
    const steps = emulator.emr.cluster(clusterId).steps.length;
    return eventually(
      async () => {
        const runs = (await server.services.runs.list(projectId, { limit: 100, offset: 0 })).items.filter(
          (run) => run.externalRunId.startsWith(`${clusterId}:`),
        );
        if (runs.length < steps || runs.some((run) => run.pipelineState !== 'DONE')) return undefined;
        const latest = await api<RecommendationResource>(
          'GET',
          `/api/v1/projects/${projectId}/recommendations/latest`,
        );
        return latest.status === 200 && runs.some((run) => run.id === latest.body.based_on_run_id)
          ? latest.body
          : undefined;
      },
      `the recommendation made after cluster ${clusterId}`,
      300_000,
    );
  }

  const waitingFor = (recommendationId: string) =>
    eventually(async () => {
      const project = await api<ProjectResource>('GET', `/api/v1/projects/${projectId}`);
      return project.body.awaiting_approval?.recommendation_id === recommendationId
        ? project.body
        : undefined;
    }, `recommendation ${recommendationId} to wait for approval`);

  const history = async () =>
    (await api<AppliedConfigListResource>('GET', `/api/v1/projects/${projectId}/applied-configs`)).body;

  beforeAll(async () => {
    face = await startEmrFace(11, keys);
    emulator = face.emulator;
    server = await startSetpointForEmr('emr-launches');
    const { key, api: signedIn } = await signedInApi(server, 'emr-launches');
    api = signedIn;
    const configured = await runCli(
      ['configure', '--url', server.url, '--api-key-id', key.id, '--api-key-secret', key.secret],
      { env: cliEnv },
    );
    expect(configured.code, configured.stderr).toBe(0);
    const account = await api<{ id: string }>(
      'POST',
      '/api/v1/emr/accounts',
      emrAccountRequest(face, keys, 'launches'),
    );
    accountId = account.body.id;
    // the first launch, as written, before Setpoint knows the workload
    await face.launcher.send(new RunJobFlowCommand(launchRequest('ledger-first', asWritten, null)));
    await face.advance(8 * hour);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await face?.close();
  });

  it('holds a learning run of a transient workload for approval, supersedes it at the next launch, and approves the next without writing anything', async () => {
    // the team allows at most 2 workers: the cluster as written (3 core) must change, during learning
    const imported = await api<EmrImportResource>('POST', `/api/v1/emr/accounts/${accountId}/import`, {
      workloads: ['ledger'],
      since_days: 30,
      settings: { slaMinutes: 240, maxWorkers: 2, applyMode: 'approve-learning' },
    });
    expect(imported.body.projects[0]).toMatchObject({ cluster_id: null, queued_runs: 1 });
    projectId = imported.body.projects[0]?.id as string;
    const first = await eventually(async () => {
      const latest = await api<RecommendationResource>(
        'GET',
        `/api/v1/projects/${projectId}/recommendations/latest`,
      );
      return latest.status === 200 ? latest.body : undefined;
    }, 'the first recommendation');
    expect(first.decision).toMatchObject({ action: 'change', learning: { active: true } });
    await waitingFor(first.id);
    // the launcher takes it at each launch: there is nothing for Setpoint to roll back
    expect(await history()).toEqual({
      items: [],
      writer: 'launcher',
      auto_apply_paused: false,
      pause_reason: null,
    });

    // the next launch goes as written while it waits (the hook does not launch it): it is superseded
    const asWrittenCluster = await launchAndCollect(launchRequest('ledger-while-waiting', asWritten, null));
    const second = await recommendationAfter(asWrittenCluster);
    const superseded = await api<{ items: ApprovalResource[] }>(
      'GET',
      `/api/v1/approvals?state=superseded&project_id=${projectId}`,
    );
    expect(superseded.body.items).toEqual([
      expect.objectContaining({
        recommendation_id: first.id,
        reason: expect.stringMatching(/ran before anyone approved it|replaced by recommendation/),
      }),
    ]);
    const approve = await api<{ error?: { code: string } }>(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/${first.id}/approve`,
    );
    expect(approve.body.error?.code).toBe('APPROVAL_SUPERSEDED');

    // the next learning run waits; approved, it is the launcher's to take: nothing is written or parked
    expect(second.decision?.learning?.active).toBe(true);
    await waitingFor(second.id);
    const approved = await api<ApprovalResource>(
      'POST',
      `/api/v1/projects/${projectId}/recommendations/${second.id}/approve`,
    );
    expect(approved).toMatchObject({
      status: 202,
      body: { state: 'approved', decided_by: expect.any(String) },
    });
    expect(
      (await api<ProjectResource>('GET', `/api/v1/projects/${projectId}`)).body.awaiting_approval,
    ).toBeNull();
    const parked = await api<{ items: Array<{ kind: string }> }>('GET', '/api/v1/jobs/parked');
    expect(parked.body.items.filter((job) => job.kind === 'project.apply')).toEqual([]);
    expect((await history()).items).toEqual([]);
  });

  it('records a launch that took a recommendation once, as that recommendation applied by its launcher, with the cluster it launched', async () => {
    const approved = (
      await api<{ items: ApprovalResource[] }>(
        'GET',
        `/api/v1/approvals?state=approved&project_id=${projectId}`,
      )
    ).body.items[0];
    if (!approved) throw new Error('the first test approved no recommendation');
    const recommendation = (
      await api<RecommendationResource>(
        'GET',
        `/api/v1/projects/${projectId}/recommendations/${approved.recommendation_id}`,
      )
    ).body;
    expect(recommendation.applied).toBeNull();

    // two steps on the launched cluster: each collected, the launch recorded once
    const launched = await launchAndCollect(
      launchRequest('ledger-sized', groupsOf(recommendation), recommendation.id, 2),
    );
    await recommendationAfter(launched);
    const recorded = await history();
    expect(recorded.writer).toBe('launcher');
    expect(recorded.items).toEqual([
      expect.objectContaining({
        kind: 'apply',
        platform: 'emr',
        recommendation_id: recommendation.id,
        actor: launcherName,
        reason: expect.stringMatching(/^launched as recommended: /),
        cluster: expect.objectContaining({ cluster_id: launched, actions: [] }),
        summary: expect.stringMatching(/^launched with 1 × m5\.xlarge primary, \d+ × \S+ core/),
        undoes: null,
      }),
    ]);
    // the CLI shows the same history, and who writes the cluster
    const listed = await runCli(['recommendations', 'applied', projectId], { env: cliEnv });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`the launcher writes project ${projectId}'s cluster`);
    expect(listed.stdout).toMatch(
      new RegExp(`apply\\s+${launcherName}\\s+launched with 1 × m5\\.xlarge primary`),
    );
    // the recommendation reads applied, by the launcher (the CLI's APPLIED column, the dashboard)
    const applied = await api<RecommendationResource>(
      'GET',
      `/api/v1/projects/${projectId}/recommendations/${recommendation.id}`,
    );
    expect(applied.body.applied).toMatchObject({ requested_by: launcherName });
    const trail = await api<{ items: Array<{ action: string; actor: string }> }>(
      'GET',
      `/api/v1/audit?action=launched&project_id=${projectId}`,
    );
    expect(trail.body.items).toEqual([expect.objectContaining({ action: 'launched', actor: launcherName })]);
    // the same step collected again records nothing new
    await emrIntegrationOf(server.services).collect(
      {
        workspaceId: accountId,
        clusterId: launched,
        stepId: emulator.emr.cluster(launched).steps[0]?.id as string,
        projectId,
      },
      1,
    );
    expect((await history()).items).toHaveLength(1);

    // a launch that changed the recommended cluster is recorded as what it launched, saying how it differs
    const changed = groupsOf(recommendation).map((group) =>
      group.InstanceRole === 'CORE' ? { ...group, InstanceCount: (group.InstanceCount ?? 0) + 1 } : group,
    );
    const edited = await launchAndCollect(launchRequest('ledger-edited', changed, recommendation.id));
    await recommendationAfter(edited);
    const after = (await history()).items;
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({
      kind: 'apply',
      recommendation_id: recommendation.id,
      actor: launcherName,
      cluster: expect.objectContaining({ cluster_id: edited }),
      reason: expect.stringMatching(
        /^launched differently from the recommendation \(core: launched (\d+) × \S+, recommended \d+ × \S+\)/,
      ),
    });
    expect(after[1]?.summary).not.toBe(after[0]?.summary);
  });

  it('records nothing for a tag that names no recommendation of the project', async () => {
    const before = (await history()).items;
    const stray = await launchAndCollect(launchRequest('ledger-stray', asWritten, 'rec_of_another_project'));
    await recommendationAfter(stray);
    expect((await history()).items).toEqual(before);
  });
});
