import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { toSqlite } from '@setpoint/databricks-emulator/server/system-tables/databricks-sql';
import { describe, expect, it } from 'vitest';
import { type TestEmulator, testEmulator } from './support.js';

const hourMs = 3_600_000;

interface StatementAnswer {
  statement_id: string;
  status: { state: string; error?: { error_code: string; message: string }; sql_state?: string };
  manifest?: {
    schema: { columns: Array<{ name: string; type_text: string; type_name: string }> };
    total_chunk_count: number;
    total_row_count: number;
  };
  result?: {
    data_array?: Array<Array<string | null>>;
    next_chunk_index?: number;
    next_chunk_internal_link?: string;
  };
}

async function sql(api: TestEmulator, statement: string, extra: Record<string, unknown> = {}) {
  const answer = await api.call('POST', '/api/2.0/sql/statements', {
    warehouse_id: defaultWarehouseId,
    statement,
    wait_timeout: '10s',
    ...extra,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as unknown as StatementAnswer;
}

/** Runs a shipped job to its end and returns its run id and the end time. */
async function finishedRun(api: TestEmulator, jobId = 1001) {
  const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id as number;
  const run = api.emulator.context.state.runs.get(runId)!;
  const clusters = [...api.emulator.context.state.clusters.values()].filter((c) => c.runId === runId);
  const terminated = Math.max(...clusters.map((c) => c.requestedAtMs + c.simulation.terminatedMs));
  await api.advance(Math.max(run.endMs, terminated) - api.emulator.context.clock.now() + 1_000);
  return { runId, clusters };
}

const billedQuery = `
  SELECT u.usage_metadata.job_run_id AS job_run_id, SUM(u.usage_quantity) AS dbus,
         SUM(u.usage_quantity * p.pricing.default) AS usd, COUNT(*) AS records,
         SUM(CASE WHEN u.record_type <> 'ORIGINAL' THEN 1 ELSE 0 END) AS corrections
  FROM system.billing.usage u
  JOIN system.billing.list_prices p
    ON u.sku_name = p.sku_name AND u.cloud = p.cloud AND u.usage_unit = p.usage_unit
   AND u.usage_start_time >= p.price_start_time
   AND (p.price_end_time IS NULL OR u.usage_end_time <= p.price_end_time)
  WHERE u.usage_metadata.job_run_id = :run_id
  GROUP BY u.usage_metadata.job_run_id`;

describe('system tables through the Statement Execution API', () => {
  it('bills a run after the billing lag, priced inside the validity window, equal to the simulated DBUs', async () => {
    const api = await testEmulator({ systemTables: { billingLagMs: 3 * hourMs, restatementRate: 0 } });
    try {
      const { runId, clusters } = await finishedRun(api);
      const parameters = [{ name: 'run_id', value: String(runId), type: 'STRING' }];
      const early = await sql(api, billedQuery, { parameters });
      expect(early.status.state).toBe('SUCCEEDED');
      expect(early.manifest?.total_row_count).toBe(0);

      await api.advance(4 * hourMs);
      const billed = await sql(api, billedQuery, { parameters });
      const [row] = billed.result?.data_array ?? [];
      expect(row?.[0]).toBe(String(runId));
      for (const cell of row ?? []) expect(typeof cell).toBe('string');
      const simulated = clusters.reduce((sum, cluster) => sum + cluster.simulation.cost.dbus, 0);
      expect(Number(row?.[1])).toBeCloseTo(simulated, 6);
      expect(Number(row?.[2])).toBeCloseTo(simulated * 0.15, 6);
      expect(billed.manifest?.schema.columns.map((column) => column.name)).toEqual([
        'job_run_id',
        'dbus',
        'usd',
        'records',
        'corrections',
      ]);
    } finally {
      await api.emulator.close();
    }
  });

  it('retracts and restates some records later; their sum is the true usage', async () => {
    const api = await testEmulator({
      systemTables: { billingLagMs: hourMs, restatementRate: 1, restatementDelayMs: 5 * hourMs },
    });
    try {
      const { runId, clusters } = await finishedRun(api);
      const parameters = [{ name: 'run_id', value: String(runId), type: 'STRING' }];
      const simulated = clusters.reduce((sum, cluster) => sum + cluster.simulation.cost.dbus, 0);
      await api.advance(2 * hourMs);
      const first = (await sql(api, billedQuery, { parameters })).result?.data_array?.[0];
      expect(Number(first?.[1])).toBeGreaterThan(simulated * 1.04);
      expect(first?.[4]).toBe('0');

      await api.advance(5 * hourMs);
      const restated = (await sql(api, billedQuery, { parameters })).result?.data_array?.[0];
      expect(Number(restated?.[1])).toBeCloseTo(simulated, 6);
      expect(Number(restated?.[4])).toBeGreaterThan(0);
      const types = await sql(
        api,
        'SELECT DISTINCT record_type FROM system.billing.usage WHERE usage_metadata.job_run_id = :run_id ORDER BY 1',
        { parameters },
      );
      expect(types.result?.data_array?.flat()).toEqual(['ORIGINAL', 'RESTATEMENT', 'RETRACTION']);
    } finally {
      await api.emulator.close();
    }
  });

  it('serves node timelines, clusters and run timelines with the documented columns and types', async () => {
    const api = await testEmulator();
    try {
      const { runId, clusters } = await finishedRun(api);
      const clusterId = clusters[0]!.clusterId;
      const nodes = await sql(
        api,
        `SELECT node_type, driver, COUNT(*) AS minutes, AVG(cpu_user_percent) AS cpu, MAX(mem_used_percent) AS mem
           FROM system.compute.node_timeline WHERE cluster_id = :cluster_id GROUP BY node_type, driver ORDER BY driver`,
        { parameters: [{ name: 'cluster_id', value: clusterId }] },
      );
      const rows = nodes.result?.data_array ?? [];
      expect(rows.map((row) => row[1])).toEqual(['false', 'true']);
      expect(Number(rows[0]?.[2])).toBeGreaterThan(Number(rows[1]?.[2]));
      expect(Number(rows[0]?.[3])).toBeGreaterThan(Number(rows[1]?.[3]));
      const types = Object.fromEntries(
        (nodes.manifest?.schema.columns ?? []).map((column) => [column.name, column.type_name]),
      );
      expect(types).toMatchObject({ node_type: 'STRING', driver: 'BOOLEAN' });

      const cluster = await sql(
        api,
        'SELECT worker_node_type, worker_count, aws_attributes.availability, dbr_version FROM system.compute.clusters WHERE cluster_id = :id',
        { parameters: [{ name: 'id', value: clusterId }] },
      );
      expect(cluster.result?.data_array?.[0]?.[0]).toBe(clusters[0]!.spec.node_type_id);
      expect(cluster.manifest?.schema.columns[1]?.type_name).toBe('BIGINT');

      const timeline = await sql(
        api,
        `SELECT run_id, MIN(period_start_time), MAX(period_end_time), MAX(result_state)
           FROM system.lakeflow.job_run_timeline WHERE run_id = :run_id GROUP BY run_id`,
        { parameters: [{ name: 'run_id', value: String(runId) }] },
      );
      const run = api.emulator.context.state.runs.get(runId)!;
      expect(timeline.result?.data_array?.[0]).toEqual([
        String(runId),
        new Date(run.startMs).toISOString(),
        new Date(run.endMs).toISOString(),
        'SUCCEEDED',
      ]);
      const tasks = await sql(
        api,
        'SELECT task_key, result_state FROM system.lakeflow.job_task_run_timeline WHERE job_run_id = :run_id AND result_state IS NOT NULL',
        { parameters: [{ name: 'run_id', value: String(runId) }] },
      );
      expect(tasks.result?.data_array?.map((row) => row[0]).sort()).toEqual(
        run.tasks.map((task) => task.taskKey).sort(),
      );
    } finally {
      await api.emulator.close();
    }
  });

  it('names each node in node_timeline as clusters/get and the cluster events do', async () => {
    const api = await testEmulator();
    try {
      const { clusters } = await finishedRun(api);
      const cluster = clusters[0]!;
      const answer = await sql(
        api,
        `SELECT instance_id, driver, MIN(start_time), MAX(end_time) FROM system.compute.node_timeline
          WHERE cluster_id = :cluster_id GROUP BY instance_id, driver`,
        { parameters: [{ name: 'cluster_id', value: cluster.clusterId }] },
      );
      const rows = answer.result?.data_array ?? [];
      const workers = rows.filter((row) => row[1] === 'false').map((row) => row[0]);
      const executors = cluster.simulation.executors.map((executor) => executor.instanceId);
      expect(workers.length).toBeGreaterThan(0);
      expect(executors).toEqual(expect.arrayContaining(workers));
      const driver = rows.find((row) => row[1] === 'true');
      const described = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${cluster.clusterId}`);
      expect(driver?.[0]).toBe((described.json.driver as { instance_id: string }).instance_id);
      // each node's rows run from the minute it launched to the minute it was released
      for (const row of rows) {
        const usage = cluster.simulation.usage.find((node) =>
          row[1] === 'true' ? node.role === 'driver' : node.instanceId === row[0],
        )!;
        const launched = cluster.requestedAtMs + usage.fromMs;
        expect(Date.parse(row[2]!)).toBeLessThanOrEqual(launched);
        expect(Date.parse(row[2]!)).toBeGreaterThan(launched - 60_000);
      }
    } finally {
      await api.emulator.close();
    }
  });

  it('pages results in chunks and answers 0s waits with a statement to poll', async () => {
    const api = await testEmulator({ statements: { chunkRows: 7 } });
    try {
      await finishedRun(api);
      const answer = await sql(
        api,
        'SELECT instance_id, start_time FROM system.compute.node_timeline ORDER BY 1, 2',
        {
          wait_timeout: '0s',
        },
      );
      expect(answer.status.state).toBe('SUCCEEDED');
      const total = answer.manifest!.total_row_count;
      expect(answer.manifest!.total_chunk_count).toBe(Math.ceil(total / 7));
      const rows = [...(answer.result?.data_array ?? [])];
      let link = answer.result?.next_chunk_internal_link;
      while (link) {
        const next = await api.call('GET', link);
        rows.push(...((next.json.data_array as string[][]) ?? []));
        link = next.json.next_chunk_internal_link as string | undefined;
      }
      expect(rows).toHaveLength(total);
      expect(new Set(rows.map((row) => row.join('|'))).size).toBe(total);
      const out = await api.call('GET', `/api/2.0/sql/statements/${answer.statement_id}/result/chunks/999`);
      expect(out.status).toBe(400);
    } finally {
      await api.emulator.close();
    }
  });

  it('reports SQL errors, missing grants and unknown warehouses as Databricks does', async () => {
    const api = await testEmulator();
    try {
      const missing = await sql(api, 'SELECT * FROM system.billing.nope');
      expect(missing.status.state).toBe('FAILED');
      expect(missing.status.error?.message).toMatch(/TABLE_OR_VIEW_NOT_FOUND/);
      expect(missing.status.sql_state).toBe('42P01');
      const write = await sql(api, 'DELETE FROM system.billing.usage');
      expect(write.status.state).toBe('FAILED');
      const warehouse = await api.call('POST', '/api/2.0/sql/statements', {
        warehouse_id: 'nope',
        statement: 'SELECT 1',
      });
      expect(warehouse.status).toBe(404);
      const badWait = await api.call('POST', '/api/2.0/sql/statements', {
        warehouse_id: defaultWarehouseId,
        statement: 'SELECT 1',
        wait_timeout: '3s',
      });
      expect(badWait.status).toBe(400);
    } finally {
      await api.emulator.close();
    }
    const denied = await testEmulator({ statements: { systemTablesGranted: false } });
    try {
      const answer = await sql(denied, 'SELECT 1 FROM system.billing.usage');
      expect(answer.status.state).toBe('FAILED');
      expect(answer.status.error?.error_code).toBe('PERMISSION_DENIED');
    } finally {
      await denied.emulator.close();
    }
  });

  it('rewrites only names: three-part tables, struct fields and backquotes, never inside strings', () => {
    expect(
      toSqlite(
        "SELECT u.usage_metadata.job_run_id, `record_type` FROM system.billing.usage u WHERE sku_name = 'system.billing.usage'",
      ),
    ).toBe(
      `SELECT json_extract(u.usage_metadata, '$.job_run_id'), "record_type" FROM "system.billing.usage" u WHERE sku_name = 'system.billing.usage'`,
    );
    expect(toSqlite('SELECT p.pricing.effective_list.default FROM system.billing.list_prices p')).toBe(
      `SELECT json_extract(p.pricing, '$.effective_list.default') FROM "system.billing.list_prices" p`,
    );
  });

  it('reads a map by key, written as a literal or a parameter, and leaves brackets in strings alone', () => {
    expect(
      toSqlite("SELECT c.tags['team'] FROM system.compute.clusters c WHERE c.tags [ 'it''s' ] = '[x]'"),
    ).toBe(
      `SELECT json_extract(c.tags, '$."team"') FROM "system.compute.clusters" c WHERE json_extract(c.tags, '$."it''s"') = '[x]'`,
    );
    expect(toSqlite('SELECT custom_tags[:tag] FROM system.billing.usage')).toBe(
      `SELECT json_extract(custom_tags, '$."' || :tag || '"') FROM "system.billing.usage"`,
    );
    // a key with a dot or a slash is one key, not a path
    expect(
      toSqlite("SELECT disk_free_bytes_per_mount_point['/local_disk0'] FROM system.compute.node_timeline"),
    ).toBe(
      `SELECT json_extract(disk_free_bytes_per_mount_point, '$."/local_disk0"') FROM "system.compute.node_timeline"`,
    );
  });

  it('answers map subscripts over the tables, and prices each cloud at its own list price', async () => {
    const api = await testEmulator();
    try {
      const { clusters } = await finishedRun(api);
      const cluster = clusters[0]!;
      const tagged = await sql(
        api,
        `SELECT tags['ClusterName'] AS name, tags[:missing] AS missing,
                disk_free_bytes_per_mount_point['/local_disk0'] AS local_disk
           FROM system.compute.clusters c
           JOIN system.compute.node_timeline n ON n.cluster_id = c.cluster_id
          WHERE c.cluster_id = :id LIMIT 1`,
        {
          parameters: [
            { name: 'id', value: cluster.clusterId },
            { name: 'missing', value: 'no-such-tag' },
          ],
        },
      );
      expect(tagged.result?.data_array?.[0]).toEqual([cluster.clusterName, null, '150000000000']);

      const prices = await sql(
        api,
        `SELECT cloud, sku_name, pricing.default FROM system.billing.list_prices
          WHERE price_end_time IS NULL AND sku_name LIKE '%JOBS%' ORDER BY cloud, sku_name`,
      );
      const rows = (prices.result?.data_array ?? []).map(([cloud, sku, usd]) => [cloud, sku, Number(usd)]);
      expect(rows).toContainEqual(['AWS', 'PREMIUM_JOBS_COMPUTE', 0.15]);
      expect(rows).toContainEqual(['AZURE', 'PREMIUM_JOBS_COMPUTE', 0.3]);
      expect(rows).toContainEqual(['AZURE', 'PREMIUM_JOBS_COMPUTE_(PHOTON)', 0.3]);
      expect(rows).toContainEqual(['AZURE', 'PREMIUM_JOBS_LIGHT_COMPUTE', 0.22]);
    } finally {
      await api.emulator.close();
    }
  });
});
