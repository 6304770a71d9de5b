import { UpstreamError } from '@setpoint/foundation/errors';
import { parseResponse } from './parse-response.js';
import { type Statement, statementChunkSchema, statementSchema } from './schema.js';
import type { DatabricksTransport } from './transport.js';

/** A statement the warehouse refused or failed: Databricks' error code, its message and SQLSTATE. */
export class StatementError extends UpstreamError {
  constructor(
    readonly errorCode: string,
    message: string,
    readonly sqlState: string | undefined,
  ) {
    super('DATABRICKS_STATEMENT_FAILED', `SQL statement failed: ${errorCode}: ${message}`, {
      details: { errorCode, sqlState },
    });
  }
}

export interface StatementOptions {
  warehouseId: string;
  /** How long the first request waits for the result (5–50 s, or 0 to return at once). */
  waitTimeoutSeconds?: number;
  /** Give up (and cancel the statement) after this long. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export type StatementParameter = { name: string; value: string | number | null; type?: string };
export type StatementRow = Record<string, string | null>;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs SQL on a warehouse through the Statement Execution API over the workspace's own transport
 * (its sign-in, retries and fetch): INLINE JSON_ARRAY results, waiting up to `wait_timeout`, then
 * polling with backoff, then every chunk; a statement still running at the deadline is cancelled.
 */
export function createStatementClient(transport: DatabricksTransport, options: StatementOptions) {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 120_000;
  let statementsSent = 0;

  async function cancel(statementId: string): Promise<void> {
    await transport
      .json({ method: 'POST', path: `/api/2.0/sql/statements/${encodeURIComponent(statementId)}/cancel` })
      .catch(() => undefined);
  }

  async function rowsOf(statement: Statement): Promise<StatementRow[]> {
    const columns = statement.manifest?.schema.columns.map((column) => column.name) ?? [];
    const rows: StatementRow[] = [];
    let chunk = statement.result;
    while (chunk) {
      for (const cells of chunk.data_array)
        rows.push(Object.fromEntries(columns.map((name, index) => [name, cells[index] ?? null])));
      const link = chunk.next_chunk_internal_link;
      if (!link) break;
      chunk = parseResponse(statementChunkSchema, await transport.json({ method: 'GET', path: link }), link);
    }
    return rows;
  }

  /** Runs one query and returns its rows, each cell a string (or null) keyed by column name. */
  async function query(sql: string, parameters: StatementParameter[] = []): Promise<StatementRow[]> {
    const deadline = now() + timeoutMs;
    const path = '/api/2.0/sql/statements';
    statementsSent += 1;
    let statement = parseResponse(
      statementSchema,
      await transport.json({
        method: 'POST',
        path,
        body: {
          warehouse_id: options.warehouseId,
          statement: sql,
          parameters: parameters.map((parameter) => ({
            name: parameter.name,
            value: parameter.value === null ? null : String(parameter.value),
            type: parameter.type ?? (typeof parameter.value === 'number' ? 'DOUBLE' : 'STRING'),
          })),
          wait_timeout: `${options.waitTimeoutSeconds ?? 10}s`,
          on_wait_timeout: 'CONTINUE',
          disposition: 'INLINE',
          format: 'JSON_ARRAY',
        },
      }),
      path,
    );
    let interval = options.pollIntervalMs ?? 250;
    while (statement.status.state === 'PENDING' || statement.status.state === 'RUNNING') {
      if (now() >= deadline) {
        await cancel(statement.statement_id);
        throw new StatementError(
          'TIMEOUT',
          `statement ${statement.statement_id} was still ${statement.status.state} after ${Math.round(timeoutMs / 1000)} s; cancelled`,
          undefined,
        );
      }
      await sleep(interval);
      interval = Math.min(interval * 2, options.maxPollIntervalMs ?? 5_000);
      const statementPath = `${path}/${encodeURIComponent(statement.statement_id)}`;
      statement = parseResponse(
        statementSchema,
        await transport.json({ method: 'GET', path: statementPath }),
        statementPath,
      );
    }
    if (statement.status.state !== 'SUCCEEDED') {
      const error = statement.status.error;
      throw new StatementError(
        error?.error_code ?? statement.status.state,
        error?.message ?? `statement ${statement.statement_id} was ${statement.status.state}`,
        statement.status.sql_state,
      );
    }
    return rowsOf(statement);
  }

  return {
    query,
    cancel,
    /** Statements sent so far (each query is one; polls and chunks are not statements). */
    get statementsSent() {
      return statementsSent;
    },
  };
}

export type StatementClient = ReturnType<typeof createStatementClient>;
