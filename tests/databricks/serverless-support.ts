import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { createServerlessBillingReader } from 'setpoint/platforms/databricks/serverless/serverless-billing-reader';
import { createSystemTablesReader } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import { expect } from 'vitest';
import { eventually, type Harness, processedRun, startHarness } from './integration-harness.js';

/** A job whose one task runs on serverless compute: a Python script in an environment, no cluster. */
export function serverlessJobSettings(name: string, workload: string, performanceTarget?: string) {
  return {
    name,
    ...(performanceTarget ? { performance_target: performanceTarget } : {}),
    environments: [{ environment_key: 'default', spec: { client: '2' } }],
    tasks: [
      {
        task_key: 'main',
        environment_key: 'default',
        spark_python_task: { python_file: `dbfs:/jobbank/${workload}.py` },
      },
    ],
  };
}

/** The emulator's REST API and admin endpoints, answered 200 or the test fails with the body. */
export function emulatorCalls(harness: () => Harness) {
  const call = async (path: string, body?: unknown) => {
    const h = harness();
    const response = await fetch(`${h.emulator.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return response.json() as Promise<Record<string, unknown>>;
  };
  return {
    call,
    clock: (body: { speed?: number; advance_ms?: number }) => call('/emulator/admin/clock', body),
    createJob: async (settings: object) => String((await call('/api/2.2/jobs/create', settings)).job_id),
    runNow: async (jobId: string, performanceTarget?: string) =>
      String(
        (
          await call('/api/2.2/jobs/run-now', {
            job_id: Number(jobId),
            ...(performanceTarget ? { performance_target: performanceTarget } : {}),
          })
        ).run_id,
      ),
  };
}

/** One pass of the workspace's billing reconciliation, looking again at once (the tests move the clock). */
export async function reconcileNow(h: Harness) {
  const integration = databricksIntegrationOf(h.server.services);
  const statements = createStatementClient((await integration.connect(h.workspaceId)).transport, {
    warehouseId: defaultWarehouseId,
  });
  return reconcileBilling(
    {
      store: integration.store,
      reader: createSystemTablesReader(statements),
      serverless: createServerlessBillingReader(statements),
      reviseCost: integration.reviseRunCost,
    },
    h.workspaceId,
    { waitingIntervalMs: 0, billedIntervalMs: 0 },
  );
}

const hourMs = 3_600_000;

/** Runs the job, waits for Setpoint to process the run, then lets its bill land and reconciles it. */
export async function runBilled(h: Harness, projectId: string, jobId: string) {
  const { clock } = emulatorCalls(() => h);
  await clock({ speed: 3600 });
  const run = await processedRun(h, projectId, await h.databricks.runNow(jobId));
  const integration = databricksIntegrationOf(h.server.services);
  await eventually(async () => {
    await reconcileNow(h);
    const [row] = await integration.store.billingOfRuns([run.id]);
    if (row?.billed_dbu_usd === null) await clock({ advance_ms: hourMs });
    return row?.billed_dbu_usd === null ? undefined : row;
  }, `the bill of run ${run.id}`);
  return h.server.services.runs.get(projectId, run.id);
}

/** A Setpoint and an emulated workspace read through a SQL warehouse, billing an hour after each hour. */
export async function startServerlessHarness(seed: number): Promise<Harness> {
  const h = await startHarness({
    seed,
    emulator: { systemTables: { billingLagMs: 3_600_000, restatementRate: 0 } },
  });
  await databricksIntegrationOf(h.server.services).checkAccess(h.workspaceId, undefined, defaultWarehouseId);
  return h;
}
