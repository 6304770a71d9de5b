import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { createStatementClient, StatementError } from 'setpoint/platforms/databricks/api/statements';
import { createTransport } from 'setpoint/platforms/databricks/api/transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('the statement client against the emulated SQL warehouse', () => {
  let emulator: RunningEmulator;
  let slow: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      clockSpeed: 0,
      rateLimitScale: 0,
      statements: { chunkRows: 3 },
    });
    slow = await startEmulator({
      port: 0,
      clockSpeed: 0,
      rateLimitScale: 0,
      statements: { executionMs: 60_000 },
    });
  });
  afterAll(async () => {
    await emulator.close();
    await slow.close();
  });

  const transportOf = (target: RunningEmulator) =>
    createTransport({ host: target.url, token: target.token, retry: { maxAttempts: 1 } });

  it('reads every chunk of a result into rows keyed by column, cells as strings', async () => {
    const statements = createStatementClient(transportOf(emulator), { warehouseId: defaultWarehouseId });
    const rows = await statements.query(
      "SELECT sku_name, cloud, pricing.default AS price FROM system.billing.list_prices WHERE sku_name LIKE 'PREMIUM_JOBS_COMPUTE%' ORDER BY price_start_time, cloud, sku_name",
    );
    // jobs compute with and without Photon, on two clouds, an old and a current price: 3 chunks of 3, 3, 2
    expect(rows).toHaveLength(8);
    expect(rows[0]).toEqual({ sku_name: 'PREMIUM_JOBS_COMPUTE', cloud: 'AWS', price: '0.20' });
    expect(new Set(rows.map((row) => `${row.sku_name}|${row.cloud}|${row.price}`)).size).toBe(8);
    expect(statements.statementsSent).toBe(1);
  });

  it('binds parameters by name', async () => {
    const statements = createStatementClient(transportOf(emulator), { warehouseId: defaultWarehouseId });
    const rows = await statements.query(
      'SELECT COUNT(*) AS n FROM system.billing.list_prices WHERE cloud = :cloud AND price_end_time IS NULL',
      [{ name: 'cloud', value: 'AZURE' }],
    );
    // one current price per Azure SKU: jobs, jobs light and all-purpose, the Photon variants of two, and
    // serverless jobs
    expect(rows).toEqual([{ n: '6' }]);
  });

  it('a failed statement is a StatementError with the error class and SQLSTATE', async () => {
    const statements = createStatementClient(transportOf(emulator), { warehouseId: defaultWarehouseId });
    const error = await statements
      .query('SELECT nope FROM system.billing.usage')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StatementError);
    expect((error as StatementError).message).toMatch(/UNRESOLVED_COLUMN/);
    expect((error as StatementError).sqlState).toBe('42703');
  });

  it('polls a statement still running after wait_timeout, and cancels it at the deadline', async () => {
    let clock = 0;
    const polls: number[] = [];
    const statements = createStatementClient(transportOf(slow), {
      warehouseId: defaultWarehouseId,
      waitTimeoutSeconds: 0,
      timeoutMs: 10_000,
      pollIntervalMs: 1_000,
      now: () => clock,
      // the injected clock moves instead of the wall clock: each poll waits 1, 2, 4 "seconds"
      sleep: async (ms) => {
        polls.push(ms);
        clock += ms;
      },
    });
    const error = await statements.query('SELECT 1 AS one').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StatementError);
    expect((error as StatementError).errorCode).toBe('TIMEOUT');
    expect(polls).toEqual([1_000, 2_000, 4_000, 5_000]);
    const id = /statement (\S+) was still/.exec((error as Error).message)?.[1];
    const answer = (await (
      await fetch(`${slow.url}/api/2.0/sql/statements/${id}`, {
        headers: { authorization: `Bearer ${slow.token}` },
      })
    ).json()) as { status: { state: string } };
    expect(answer.status.state).toBe('CANCELED');
  });

  it('waits through a statement that finishes after the first answer', async () => {
    const quick = await startEmulator({
      port: 0,
      clockSpeed: 0,
      rateLimitScale: 0,
      statements: { executionMs: 150 },
    });
    try {
      const statements = createStatementClient(transportOf(quick), {
        warehouseId: defaultWarehouseId,
        waitTimeoutSeconds: 0,
        pollIntervalMs: 50,
      });
      expect(await statements.query('SELECT 2 AS two')).toEqual([{ two: '2' }]);
    } finally {
      await quick.close();
    }
  });
});
