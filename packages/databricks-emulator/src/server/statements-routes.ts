import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { invalidParameter, invalidState, resourceMissing } from './api-errors.js';
import { parseWith, type RouteKit, registerApi } from './route-kit.js';
import { SqlError, type StatementResult, type SystemTables } from './system-tables/system-tables.js';

export interface StatementOptions {
  /** The SQL warehouse ids that exist (default one, `setpoint0emulator`). */
  warehouseIds?: string[];
  /** Real milliseconds a statement takes to run (default 0); tests raise it to exercise polling. */
  executionMs?: number;
  /** Rows per result chunk (default 10 000). */
  chunkRows?: number;
  /** false: the caller lacks USE CATALOG system / SELECT, every statement fails as on a real warehouse. */
  systemTablesGranted?: boolean;
}

export const defaultWarehouseId = 'setpoint0emulator';

const parameterSchema = z.object({
  name: z.string().min(1),
  value: z.string().nullable().optional(),
  type: z.string().optional(),
});

const executeBodySchema = z.object({
  warehouse_id: z.string().min(1),
  statement: z
    .string()
    .min(1)
    .max(16 * 1024 * 1024),
  catalog: z.string().optional(),
  schema: z.string().optional(),
  parameters: z.array(parameterSchema).optional(),
  wait_timeout: z
    .string()
    .regex(/^\d+s$/, 'wait_timeout is a number of seconds followed by s, e.g. 10s')
    .optional(),
  on_wait_timeout: z.enum(['CONTINUE', 'CANCEL']).optional(),
  disposition: z.enum(['INLINE', 'EXTERNAL_LINKS']).optional(),
  format: z.enum(['JSON_ARRAY', 'ARROW_STREAM', 'CSV']).optional(),
  row_limit: z.number().int().positive().optional(),
  byte_limit: z.number().int().positive().optional(),
});

type State = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

interface StatementRecord {
  id: string;
  state: State;
  readyAt: number;
  sql: string;
  parameters: Record<string, string | number | null>;
  rowLimit: number | undefined;
  result?: StatementResult;
  truncated: boolean;
  error?: { error_code: string; message: string };
  sqlState?: string;
}

const numericTypes = new Set([
  'INT',
  'INTEGER',
  'BIGINT',
  'SMALLINT',
  'TINYINT',
  'DOUBLE',
  'FLOAT',
  'DECIMAL',
]);

function bindParameters(parameters: z.infer<typeof parameterSchema>[] = []) {
  const bound: Record<string, string | number | null> = {};
  for (const parameter of parameters) {
    const type = (parameter.type ?? 'STRING').toUpperCase().replace(/\(.*$/, '');
    const value = parameter.value ?? null;
    if (value !== null && numericTypes.has(type)) {
      const number = Number(value);
      if (!Number.isFinite(number))
        throw invalidParameter(`Parameter ${parameter.name} of type ${type} has a non-numeric value.`);
      bound[parameter.name] = number;
    } else bound[parameter.name] = value;
  }
  return bound;
}

/**
 * The SQL Statement Execution API (`/api/2.0/sql/statements`) over the emulated system catalog:
 * `wait_timeout` (0s answers at once; 5–50 s waits for the result, then CONTINUE or CANCEL),
 * polling by id, INLINE JSON_ARRAY results in chunks whose cells are strings, cancellation, and
 * statement errors as FAILED with Databricks' error class and SQLSTATE.
 */
export function registerStatementRoutes(
  app: FastifyInstance,
  kit: RouteKit,
  tables: SystemTables,
  options: StatementOptions = {},
): void {
  const warehouses = options.warehouseIds ?? [defaultWarehouseId];
  const chunkRows = options.chunkRows ?? 10_000;
  const executionMs = options.executionMs ?? 0;
  const statements = new Map<string, StatementRecord>();

  function settle(record: StatementRecord): void {
    if (record.state !== 'PENDING' && record.state !== 'RUNNING') return;
    if (Date.now() < record.readyAt) {
      record.state = 'RUNNING';
      return;
    }
    tables.statementsExecuted += 1;
    if (options.systemTablesGranted === false) {
      record.state = 'FAILED';
      record.error = {
        error_code: 'PERMISSION_DENIED',
        message:
          "[INSUFFICIENT_PERMISSIONS] Insufficient privileges: User does not have USE CATALOG on Catalog 'system'.",
      };
      record.sqlState = '42501';
      return;
    }
    try {
      const result = tables.execute(record.sql, record.parameters);
      const limited = record.rowLimit !== undefined && result.rows.length > record.rowLimit;
      record.result = limited ? { ...result, rows: result.rows.slice(0, record.rowLimit) } : result;
      record.truncated = limited;
      record.state = 'SUCCEEDED';
    } catch (error) {
      if (!(error instanceof SqlError)) throw error;
      record.state = 'FAILED';
      record.error = { error_code: error.errorCode, message: error.message };
      record.sqlState = error.sqlState;
    }
  }

  function chunk(record: StatementRecord, index: number) {
    const rows = record.result?.rows ?? [];
    const offset = index * chunkRows;
    const slice = rows.slice(offset, offset + chunkRows);
    const chunkCount = Math.max(1, Math.ceil(rows.length / chunkRows));
    const hasNext = index + 1 < chunkCount;
    return {
      chunk_index: index,
      row_offset: offset,
      row_count: slice.length,
      ...(slice.length > 0 ? { data_array: slice } : {}),
      ...(hasNext
        ? {
            next_chunk_index: index + 1,
            next_chunk_internal_link: `/api/2.0/sql/statements/${record.id}/result/chunks/${index + 1}`,
          }
        : {}),
    };
  }

  function present(record: StatementRecord) {
    settle(record);
    const status = {
      state: record.state,
      ...(record.error ? { error: record.error } : {}),
      ...(record.sqlState ? { sql_state: record.sqlState } : {}),
    };
    if (record.state !== 'SUCCEEDED' || !record.result) return { statement_id: record.id, status };
    const rows = record.result.rows;
    const chunkCount = Math.max(1, Math.ceil(rows.length / chunkRows));
    return {
      statement_id: record.id,
      status,
      manifest: {
        format: 'JSON_ARRAY',
        schema: { column_count: record.result.columns.length, columns: record.result.columns },
        total_chunk_count: chunkCount,
        chunks: Array.from({ length: chunkCount }, (_, index) => {
          const offset = index * chunkRows;
          return {
            chunk_index: index,
            row_offset: offset,
            row_count: rows.slice(offset, offset + chunkRows).length,
          };
        }),
        total_row_count: rows.length,
        truncated: record.truncated,
      },
      result: chunk(record, 0),
    };
  }

  function find(id: string): StatementRecord {
    const record = statements.get(id);
    if (!record) throw resourceMissing(`Statement ${id} does not exist.`);
    return record;
  }

  registerApi(app, kit, 'GET', '/sql/warehouses', ['2.0'], () => ({
    warehouses: warehouses.map((id) => ({
      id,
      name: id === defaultWarehouseId ? 'Setpoint emulator serverless' : id,
      state: 'RUNNING',
      warehouse_type: 'PRO',
      enable_serverless_compute: true,
      cluster_size: '2X-Small',
    })),
  }));

  registerApi(app, kit, 'POST', '/sql/statements', ['2.0'], async ({ body: raw }) => {
    const body = parseWith(executeBodySchema, raw);
    if (!warehouses.includes(body.warehouse_id))
      throw resourceMissing(`Warehouse ${body.warehouse_id} does not exist.`);
    if ((body.disposition ?? 'INLINE') !== 'INLINE' || (body.format ?? 'JSON_ARRAY') !== 'JSON_ARRAY')
      throw invalidParameter('The emulator serves INLINE dispositions in JSON_ARRAY format only.');
    const waitSeconds = Number((body.wait_timeout ?? '10s').slice(0, -1));
    if (waitSeconds !== 0 && (waitSeconds < 5 || waitSeconds > 50))
      throw invalidParameter('wait_timeout must be 0s or between 5s and 50s.');
    const record: StatementRecord = {
      id: `01ef${randomUUID().slice(4)}`,
      state: 'PENDING',
      readyAt: Date.now() + executionMs,
      sql: body.statement,
      parameters: bindParameters(body.parameters),
      rowLimit: body.row_limit,
      truncated: false,
    };
    statements.set(record.id, record);
    if (waitSeconds === 0) return present(record);
    const waitUntil = Date.now() + waitSeconds * 1000;
    if (record.readyAt > waitUntil) {
      if (body.on_wait_timeout === 'CANCEL') {
        await new Promise((resolve) => setTimeout(resolve, waitUntil - Date.now()));
        record.state = 'CANCELED';
      }
      return present(record);
    }
    const wait = record.readyAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return present(record);
  });

  registerApi(app, kit, 'GET', '/sql/statements/:id', ['2.0'], ({ request }) =>
    present(find((request.params as { id: string }).id)),
  );

  registerApi(app, kit, 'GET', '/sql/statements/:id/result/chunks/:index', ['2.0'], ({ request }) => {
    const params = request.params as { id: string; index: string };
    const record = find(params.id);
    settle(record);
    if (record.state !== 'SUCCEEDED')
      throw invalidState(`Statement ${record.id} is ${record.state}: it has no result to read.`);
    const index = Number(params.index);
    const count = Math.max(1, Math.ceil((record.result?.rows.length ?? 0) / chunkRows));
    if (!Number.isInteger(index) || index < 0 || index >= count)
      throw invalidParameter(`Chunk ${params.index} is out of range (the result has ${count}).`);
    return chunk(record, index);
  });

  registerApi(app, kit, 'POST', '/sql/statements/:id/cancel', ['2.0'], ({ request }) => {
    const record = find((request.params as { id: string }).id);
    settle(record);
    if (record.state === 'PENDING' || record.state === 'RUNNING') record.state = 'CANCELED';
    return {};
  });
}
