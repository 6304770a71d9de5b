import { type FormFactorAdviceResource, formFactorAdviceSchema } from '@setpoint/api-contract';
import type {
  EmrAccountResource,
  EmrServerlessDiscoverResource,
  EmrServerlessImportResource,
} from '@setpoint/api-contract/emr';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { type MotoServer, startMotoServer } from '../support/moto-server.js';
import { settledRecommendation } from '../support/settled-recommendation.js';
import { describeFull } from '../support/tiers.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startSetpointForEmr } from './support/emr-test-bench.js';
import { type ServerlessApplication, startServerlessApplication } from './support/serverless-application.js';

vi.setConfig({ testTimeout: 300_000 });

const region = 'us-east-1';
const keys = { accessKeyId: 'AKIAMOTO00000000', secretAccessKey: 'moto-secret-never-shown' };
const minute = 60_000;
const day = 86_400_000;
/** EMR Serverless in us-east-1 (x86): per vCPU-hour and per GB-hour of memory (Setpoint's price data). */
const price = { vcpu: 0.052624, memory: 0.0057785 };

// moto (PyPI `moto[server]`) implements the EMR Serverless API Setpoint reads; its job runs succeed at once
// with no timeline and a bill of zero, so the test sets, on moto's own records, when each run started and ended
// and what AWS billed it (moto answers them serialized by botocore's service model).
describeFull(
  'EMR Serverless jobs as Setpoint projects (moto emr-serverless, SQLite)',
  'moto[server] from PyPI (SETPOINT_PYTHON)',
  () => {
    let moto: MotoServer;
    let server: RunningServer;
    let app: ServerlessApplication;
    let token: string;
    let accountId = '';
    let applicationId = '';
    let projectId = '';
    const orders: string[] = [];
    const now = Date.now();

    const api = async <T>(method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const response = await server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: (response.body ? response.json() : null) as T };
    };

    const startRun = (name: string | undefined, entryPoint: string, token: string) =>
      app.startRun(name, entryPoint, token);

    beforeAll(async () => {
      moto = await startMotoServer();
      app = await startServerlessApplication(moto, keys);
      applicationId = app.applicationId;
      // three nightly runs of one job: 40, 44 and 52 minutes from submission; the third not billed yet
      const spans = [40, 44, 52];
      for (const [index, minutes] of spans.entries()) {
        const id = await startRun(`orders-2026-12-0${index + 1}`, 's3://jobs/orders.py', `orders-${index}`);
        orders.push(id);
        const createdAt = now - (3 - index) * day;
        await moto.setJobRun({
          applicationId,
          jobRunId: id,
          createdAt,
          startedAt: createdAt + minute,
          endedAt: createdAt + minutes * minute,
          totalExecutionDurationSeconds: (minutes - 1) * 60,
          ...(index < 2
            ? { billed: { vCPUHour: 8 + index, memoryGBHour: 32 + 4 * index, storageGBHour: 0 } }
            : {}),
        });
      }
      // an unnamed run of another job: grouped by its entry point
      const sessions = await startRun(undefined, 's3://jobs/sessions.py', 'sessions-0');
      await moto.setJobRun({
        applicationId,
        jobRunId: sessions,
        createdAt: now - day,
        endedAt: now - day + 5 * minute,
      });

      server = await startSetpointForEmr('emr-serverless');
      const key = await server.services.apiKeys.create('emr-serverless-test', 'test');
      token = (await server.services.apiKeys.exchange(key.id, key.secret)).accessToken;
      const created = await api<EmrAccountResource>('POST', '/api/v1/emr/accounts', {
        name: 'analytics (serverless)',
        region,
        endpoint: moto.endpoint,
        credentials: {
          kind: 'access-keys',
          access_key_id: keys.accessKeyId,
          secret_access_key: keys.secretAccessKey,
        },
      });
      expect(created.status).toBe(201);
      accountId = created.body.id;
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      app?.launcher.destroy();
      await moto?.close();
    });

    it('discovers the application and groups its job runs into jobs (by name, else by entry point)', async () => {
      const found = await api<EmrServerlessDiscoverResource>(
        'GET',
        `/api/v1/emr/accounts/${accountId}/serverless/discover?since_days=14`,
      );
      expect(found.status).toBe(200);
      const application = found.body.applications.find((entry) => entry.id === applicationId);
      expect(application).toMatchObject({
        name: 'analytics',
        release_label: 'emr-7.2.0',
        architecture: 'X86_64',
      });
      expect(application?.jobs.map((job) => [job.key, job.runs.length, job.recurring])).toEqual([
        ['orders', 3, true],
        ['s3://jobs/sessions.py', 1, false],
      ]);
      expect(application?.jobs[0]?.runs.map((run) => run.job_run_id)).toEqual(orders);

      const bad = await api<{ error: { message: string } }>(
        'GET',
        `/api/v1/emr/accounts/${accountId}/serverless/discover?application_id=NOT-AN-ID`,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/application id looks like/);
    });

    it('imports a job as a monitored project: runtime from the timeline, cost as billed, pending until billed', async () => {
      const receiver = await startWebhookReceiver();
      const alerts = server.services.alerts;
      const destination = await alerts.createDestination(
        {
          kind: 'webhook',
          name: 'data team',
          url: receiver.url,
          signing_secret: 'whsec-emr-serverless-0123',
          max_per_hour: 30,
        },
        'test',
      );
      await alerts.createRule(
        {
          project_id: null,
          event: 'sla_missed',
          destination_id: destination.id,
          params: { threshold_pct: 20, window_runs: 5, at_risk_fraction: 0.9 },
          enabled: true,
        },
        'test',
      );
      const imported = await api<EmrServerlessImportResource>(
        'POST',
        `/api/v1/emr/accounts/${accountId}/serverless/import`,
        { application_id: applicationId, jobs: ['orders', 'no-such-job'], settings: { slaMinutes: 48 } },
      );
      expect(imported.status).toBe(200);
      expect(imported.body.missing).toEqual(['no-such-job']);
      expect(imported.body.projects).toEqual([
        expect.objectContaining({
          application_id: applicationId,
          job: 'orders',
          created: true,
          queued_runs: 3,
        }),
      ]);
      projectId = imported.body.projects[0]?.id as string;

      const runs = await eventually(async () => {
        const page = await server.services.runs.list(projectId, { limit: 10, offset: 0 });
        const done = page.items.filter((run) => run.pipelineState === 'DONE');
        return done.length === 3 ? done : undefined;
      }, 'the three job runs to be processed');
      const byJobRun = new Map(runs.map((run) => [run.externalRunId.split(':')[1], run]));
      const [first, second, third] = orders.map((id) => byJobRun.get(id));
      // runtime: submission to end, from the job run's timeline
      expect(((first?.endedAt ?? 0) - (first?.startedAt ?? 0)) / minute).toBeCloseTo(40, 6);
      expect(((third?.endedAt ?? 0) - (third?.startedAt ?? 0)) / minute).toBeCloseTo(52, 6);
      expect(first?.clusterConfig).toMatchObject({ form: 'emr-serverless', application_id: applicationId });
      // cost: billed vCPU-hours and GB-hours at the region's published price, typed components billed by AWS
      expect(first?.cost?.totalUsd).toBeCloseTo(8 * price.vcpu + 32 * price.memory, 9);
      expect(second?.cost?.totalUsd).toBeCloseTo(9 * price.vcpu + 36 * price.memory, 9);
      expect(first?.cost?.components.map((c) => [c.kind, c.billed_by, c.unit])).toEqual([
        ['compute', 'cloud', 'vCPU-hour'],
        ['compute', 'cloud', 'GB-hour'],
        ['storage', 'cloud', 'GB-hour'],
      ]);
      // not billed yet: no cost, the reason, never $0
      expect(third?.cost).toBeNull();
      expect(third?.costPending).toMatch(/carries no billedResourceUtilization yet/);

      // monitored: the recommendation keeps the job and predicts from its own runs
      const recommendation = await settledRecommendation(server.services.recommendations, projectId);
      expect(recommendation).toMatchObject({ state: 'SUCCESS', phase: 'MONITORING' });
      expect(recommendation.configuration).toMatchObject({ form: 'emr-serverless' });
      expect(recommendation.explanation).toMatch(/2 of 3 successful runs met the 48-minute SLA/);
      // Setpoint writes nothing on EMR Serverless
      const refused = await api<{ error: { code: string } }>(
        'POST',
        `/api/v1/projects/${projectId}/emr/apply`,
        {},
      );
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('EMR_SERVERLESS_MONITORED');

      // SLA health and alerts as for any project: the 52-minute run missed the 48-minute SLA
      const list = await api<{
        items: Array<{ id: string; summary?: { sla_health: { runs: number; missed: number } } }>;
      }>('GET', '/api/v1/projects?limit=100');
      expect(list.body.items.find((item) => item.id === projectId)?.summary?.sla_health).toMatchObject({
        runs: 3,
        missed: 1,
      });
      await alerts.evaluate();
      const sent = await eventually(async () => {
        const page = await alerts.notifications({ limit: 10, offset: 0, projectId });
        return page.rows.find((entry) => entry.event === 'sla_missed' && entry.status === 'SENT');
      }, 'the SLA-missed notification');
      expect(sent.title).toMatch(/over its 48 min SLA/);
      receiver.close();

      // the bill lands: reconciliation replaces the pending cost with it
      await moto.setJobRun({
        applicationId,
        jobRunId: orders[2] as string,
        billed: { vCPUHour: 10, memoryGBHour: 40, storageGBHour: 0 },
      });
      await emrIntegrationOf(server.services).reconcile(accountId);
      const billed = await server.services.runs.get(projectId, third?.id as string);
      expect(billed.costPending).toBeNull();
      expect(billed.cost?.totalUsd).toBeCloseTo(10 * price.vcpu + 40 * price.memory, 9);
    });

    it('collects a new run on reconciliation, once, and imports again without a second project', async () => {
      const id = await startRun('orders-2026-12-05', 's3://jobs/orders.py', 'orders-new');
      await moto.setJobRun({
        applicationId,
        jobRunId: id,
        createdAt: now - 60 * minute,
        endedAt: now - 20 * minute,
        billed: { vCPUHour: 8, memoryGBHour: 32, storageGBHour: 0 },
      });
      const integration = emrIntegrationOf(server.services);
      await integration.reconcile(accountId);
      await integration.reconcile(accountId);
      const runs = await eventually(async () => {
        const page = await server.services.runs.list(projectId, { limit: 10, offset: 0 });
        return page.items.some(
          (run) => run.externalRunId === `${applicationId}:${id}` && run.pipelineState === 'DONE',
        )
          ? page.items
          : undefined;
      }, 'the new job run to be collected');
      expect(runs.filter((run) => run.externalRunId.endsWith(`:${id}`))).toHaveLength(1);
      const again = await api<EmrServerlessImportResource>(
        'POST',
        `/api/v1/emr/accounts/${accountId}/serverless/import`,
        { application_id: applicationId, jobs: ['orders'] },
      );
      expect(again.body.projects[0]).toMatchObject({ id: projectId, created: false, queued_runs: 0 });
    });

    it('advises the form factor: EMR Serverless → EMR on EC2 only from runs measured on a cluster', async () => {
      const response = await api<FormFactorAdviceResource>(
        'GET',
        `/api/v1/projects/${projectId}/form-factor`,
      );
      expect(response.status).toBe(200);
      const advice = formFactorAdviceSchema.parse(response.body);
      expect(advice).toMatchObject({
        from: 'serverless',
        to: 'classic',
        change: 'EMR Serverless → EMR on EC2',
        verdict: 'no_estimate',
        estimate: null,
        proposal: null,
      });
      expect(advice.reason).toMatch(/never ran on an EMR cluster that Setpoint saw/);
      // the current cost is the median of the four billed runs (8, 8, 9 and 10 vCPU-hours)
      const usd = (vcpu: number) => vcpu * price.vcpu + 4 * vcpu * price.memory;
      expect(advice.current_usd_per_run).toBeCloseTo((usd(8) + usd(9)) / 2, 9);
    });

    it('refuses to add a job to a project of another account, and an unknown application, with 400s', async () => {
      const other = await server.services.projects.create({ name: 'elsewhere' }, 'test');
      const refused = await api<{ error: { message: string } }>(
        'POST',
        `/api/v1/emr/accounts/${accountId}/serverless/import`,
        { application_id: applicationId, jobs: ['orders'], project_id: other.id },
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/is not a project of EMR account/);
      const unknown = await api<{ error: { message: string } }>(
        'POST',
        `/api/v1/emr/accounts/${accountId}/serverless/import`,
        { application_id: '00nosuchapp0000', jobs: ['orders'] },
      );
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/no EMR Serverless application 00nosuchapp0000/);
    });
  },
);
