import { RunJobFlowCommand } from '@aws-sdk/client-emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { emrIntegrationOf } from 'setpoint/platforms/emr/emr-platform';
import type { RunningServer } from 'setpoint/server/start-server';
import type { RunCost } from 'setpoint/service/runs/run-records';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import type { S3TestServer } from '../support/s3-test-server.js';
import { type EmrFace, startEmrFace, startSetpointForEmr } from './support/emr-test-bench.js';

vi.setConfig({ testTimeout: 300_000 });

const hour = 3_600_000;
const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret-never-shown' };

/**
 * Runs costed before the cost was split into the application's part and the overhead carry no overhead;
 * the backfill prices them again and adds it, without changing a total.
 */
describe('the overhead backfill of EMR runs costed before the split', () => {
  let face: EmrFace;
  let s3Server: S3TestServer;
  let emulator: RunningEmulator;
  let server: RunningServer;

  beforeAll(async () => {
    face = await startEmrFace(11, keys);
    ({ s3Server, emulator } = face);
    const { launcher } = face;
    for (const date of ['2026-03-02', '2026-03-03']) {
      await launcher.send(
        new RunJobFlowCommand({
          Name: `nightly-orders-${date}`,
          ReleaseLabel: 'emr-7.2.0',
          LogUri: 's3://emr-logs/logs/',
          Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
          Configurations: [
            {
              Classification: 'spark-defaults',
              Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' },
            },
          ],
          Instances: {
            KeepJobFlowAliveWhenNoSteps: false,
            InstanceGroups: [
              { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
              { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
            ],
          },
          Steps: [
            {
              Name: 'orders-etl',
              HadoopJarStep: {
                Jar: 'command-runner.jar',
                Args: ['spark-submit', 's3://jobs/daily-aggregation.py'],
              },
            },
          ],
        }),
      );
      emulator.context.clock.advance(8 * hour);
    }
    emulator.emr.catchUp();
    await emulator.emr.logsWritten();
    server = await startSetpointForEmr('emr-backfill');
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await face?.close();
  });

  it('adds the overhead to runs that lack it when the prices are unchanged, and changes no total', async () => {
    const integration = emrIntegrationOf(server.services);
    const account = await integration.accounts.create(
      {
        name: 'analytics',
        connection: {
          region: 'us-east-1',
          credentials: { kind: 'access-keys', ...keys },
          endpoint: emulator.url,
          s3Endpoint: s3Server.endpoint,
        },
        logStoreKeys: s3Server.credentials,
        rule: { kind: 'tag', key: 'setpoint:project-id' },
      },
      { actor: 'test', role: 'admin' },
    );
    const { imported } = await integration.importWorkloads(
      account.id,
      { keys: ['orders'], sinceDays: 30, collectHistory: true },
      'test',
    );
    const projectId = imported[0]?.projectId as string;
    const runs = await eventually(
      async () => {
        const page = await server.services.runs.list(projectId, { limit: 10, offset: 0 });
        const done = page.items.filter((run) => run.pipelineState === 'DONE');
        return done.length === 2 ? done : undefined;
      },
      'both steps to be costed',
      240_000,
    );
    const [older, newer] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const costs = new Map(runs.map((run) => [run.id, run.cost as RunCost]));
    for (const cost of costs.values()) expect(cost.overhead?.usd).toBeGreaterThan(0);

    // as costed before the split: no overhead; the newer one's total as if priced at other rates since
    const db = server.services.store.db;
    const withoutOverhead = (cost: RunCost, totalUsd = cost.totalUsd) => {
      const { overhead: _overhead, ...rest } = cost;
      return JSON.stringify({ ...rest, totalUsd });
    };
    const olderCost = costs.get(older.id) as RunCost;
    const newerCost = costs.get(newer.id) as RunCost;
    await db
      .updateTable('runs')
      .set({ cost: withoutOverhead(olderCost) })
      .where('id', '=', older.id)
      .execute();
    await db
      .updateTable('runs')
      .set({ cost: withoutOverhead(newerCost, newerCost.totalUsd * 1.1) })
      .where('id', '=', newer.id)
      .execute();

    // and, as in a database from before the split, the one-time pass not yet finished
    await db.deleteFrom('maintenance_passes').execute();

    expect(await server.services.pipeline.backfillRunOverhead()).toEqual({ split: 1, kept: 1 });
    const after = new Map(
      (await server.services.runs.list(projectId, { limit: 10, offset: 0 })).items.map((run) => [
        run.id,
        run.cost,
      ]),
    );
    expect(after.get(older.id)).toEqual(olderCost);
    expect(after.get(newer.id)?.overhead).toBeNull();
    expect(after.get(newer.id)?.totalUsd).toBeCloseTo(newerCost.totalUsd * 1.1, 9);
    // the API shows the added overhead
    const key = await server.services.apiKeys.create('backfill-test', 'test');
    const token = (await server.services.apiKeys.exchange(key.id, key.secret)).accessToken;
    const response = await server.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/runs/${older.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.json().cost.overhead).toEqual({
      seconds: olderCost.overhead?.seconds,
      usd: olderCost.overhead?.usd,
    });
    // both were seen: the next start prices nothing again
    expect(await server.services.pipeline.backfillRunOverhead()).toEqual({ split: 0, kept: 0 });
  });
});
