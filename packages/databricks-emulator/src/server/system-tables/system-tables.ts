import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import Database from 'better-sqlite3';
import { photonDbuMultiplier } from '../../physics/cost.js';
import { busyByMinute } from '../cluster-busy.js';
import { clusterTimes } from '../cluster-timeline.js';
import { driverInstanceId } from '../cluster-views.js';
import type { ClusterRecord, EmulatorState, RunRecord } from '../emulator-state.js';
import type { SimClock } from '../sim-clock.js';
import { workspaceUser } from '../workspace-user.js';
import { allPurposeBillingRows, allPurposeClusterRows } from './all-purpose-billing.js';
import {
  addUsageByHour,
  billingUsageRow,
  hourMs,
  hoursInOrder,
  publishedRecords,
  type Restatements,
} from './billing-usage.js';
import { toSqlite } from './databricks-sql.js';
import { day, iso, json, stableId } from './record-values.js';
import { serverlessBillingRows, serverlessListPrices } from './serverless-billing.js';
import { isNestedType, systemTables, type TableDefinition } from './table-definitions.js';

const minuteMs = 60_000;

export interface SystemTablesOptions {
  /** How long after an hour of usage its billing rows appear (default 2 h; Databricks: usually hours). */
  billingLagMs?: number;
  /** Share of hourly billing records first published wrong and later retracted and restated (default 0.05). */
  restatementRate?: number;
  /** How long after the original a wrong record is retracted and restated (default 6 h). */
  restatementDelayMs?: number;
  accountId?: string;
}

export interface StatementColumn {
  name: string;
  type_text: string;
  type_name: string;
  position: number;
}

export interface StatementResult {
  columns: StatementColumn[];
  rows: Array<Array<string | null>>;
}

/** A failed statement: Databricks' error class in the message, its SQLSTATE beside. */
export class SqlError extends Error {
  constructor(
    message: string,
    readonly errorCode: string,
    readonly sqlState: string,
  ) {
    super(message);
  }
}

type Row = Record<string, string | number | null>;

/**
 * The Premium plan's list prices per DBU (Databricks' pricing pages): classic compute costs twice as
 * much per DBU on Azure as on AWS, and each SKU has a Photon twin at the same price per DBU. Photon costs
 * more through more DBUs per node-hour, not through its price. The prices before 2024 are older ones the
 * join has to skip.
 */
export const listPrices: ReadonlyArray<{
  cloud: 'AWS' | 'AZURE';
  sku: string;
  previousUsd: number;
  usd: number;
}> = [
  { cloud: 'AWS', sku: 'PREMIUM_JOBS_COMPUTE', previousUsd: 0.2, usd: 0.15 },
  { cloud: 'AWS', sku: 'PREMIUM_JOBS_COMPUTE_(PHOTON)', previousUsd: 0.2, usd: 0.15 },
  { cloud: 'AWS', sku: 'PREMIUM_JOBS_LIGHT_COMPUTE', previousUsd: 0.13, usd: 0.1 },
  { cloud: 'AWS', sku: 'PREMIUM_ALL_PURPOSE_COMPUTE', previousUsd: 0.65, usd: 0.55 },
  { cloud: 'AWS', sku: 'PREMIUM_ALL_PURPOSE_COMPUTE_(PHOTON)', previousUsd: 0.65, usd: 0.55 },
  { cloud: 'AZURE', sku: 'PREMIUM_JOBS_COMPUTE', previousUsd: 0.4, usd: 0.3 },
  { cloud: 'AZURE', sku: 'PREMIUM_JOBS_COMPUTE_(PHOTON)', previousUsd: 0.4, usd: 0.3 },
  { cloud: 'AZURE', sku: 'PREMIUM_JOBS_LIGHT_COMPUTE', previousUsd: 0.3, usd: 0.22 },
  { cloud: 'AZURE', sku: 'PREMIUM_ALL_PURPOSE_COMPUTE', previousUsd: 0.65, usd: 0.55 },
  { cloud: 'AZURE', sku: 'PREMIUM_ALL_PURPOSE_COMPUTE_(PHOTON)', previousUsd: 0.65, usd: 0.55 },
  ...serverlessListPrices,
];

function storedName(table: TableDefinition): string {
  return `${table.name.replaceAll('.', '_')}__all`;
}

/**
 * The system catalog of the emulated workspace in an embedded SQLite database: billing usage, list
 * prices, clusters, per-minute node timelines and job run timelines, written from the simulation of
 * each cluster once it terminates and each run once it ends. Every row carries the simulated time it
 * becomes visible — billing after the configured lag, restatements later still — and the
 * `system.*` names are views that show only what is visible at the simulated now.
 */
export class SystemTables {
  private readonly db: Database.Database;
  private readonly clustersWritten = new Set<string>();
  private readonly runsWritten = new Set<number>();
  /** All-purpose cluster versions (`version <id>@<change time>`) and billed hours (`billed <id>@<hour>`) written. */
  private readonly allPurposeWritten = new Set<string>();
  /** Statements run so far, for tests and benches that count round trips. */
  statementsExecuted = 0;
  readonly billingLagMs: number;
  readonly restatementRate: number;
  readonly restatementDelayMs: number;
  private readonly accountId: string;
  private readonly restatements: Restatements;

  constructor(
    private readonly deps: {
      state: EmulatorState;
      clock: SimClock;
      seed: number;
      workspaceId: string;
      /** The workspace's cloud, which serverless usage is billed in (default aws). */
      cloud?: 'aws' | 'azure';
    },
    options: SystemTablesOptions = {},
  ) {
    this.billingLagMs = options.billingLagMs ?? 2 * hourMs;
    this.restatementRate = options.restatementRate ?? 0.05;
    this.restatementDelayMs = options.restatementDelayMs ?? 6 * hourMs;
    this.restatements = { rate: this.restatementRate, delayMs: this.restatementDelayMs };
    this.accountId = options.accountId ?? 'e5b8c1a2-0000-4000-8000-000000setpnt';
    this.db = new Database(':memory:');
    this.db.function('sim_now', { deterministic: false }, () => this.deps.clock.now());
    this.db.function('unix_millis', { deterministic: true }, (value: unknown) =>
      value === null ? null : Date.parse(String(value)),
    );
    this.db.function('unix_timestamp', { deterministic: true }, (value: unknown) =>
      value === null ? null : Math.floor(Date.parse(String(value)) / 1000),
    );
    this.db.function('timestamp_millis', { deterministic: true }, (value: unknown) =>
      value === null ? null : iso(Number(value)),
    );
    for (const table of systemTables) this.createTable(table);
    this.writeListPrices();
  }

  close(): void {
    this.db.close();
  }

  private createTable(table: TableDefinition): void {
    const columns = table.columns.map((column) => `"${column.name}" ${sqliteType(column.type)}`);
    this.db.exec(`CREATE TABLE "${storedName(table)}" (${columns.join(', ')}, _visible_at INTEGER NOT NULL)`);
    this.db.exec(
      `CREATE VIEW "${table.name}" AS SELECT ${table.columns.map((column) => `"${column.name}"`).join(', ')} FROM "${storedName(table)}" WHERE _visible_at <= sim_now()`,
    );
  }

  private insert(table: TableDefinition, rows: Array<Row & { _visible_at: number }>): void {
    if (rows.length === 0) return;
    const names = [...table.columns.map((column) => column.name), '_visible_at'];
    const statement = this.db.prepare(
      `INSERT INTO "${storedName(table)}" (${names.map((name) => `"${name}"`).join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`,
    );
    const insertAll = this.db.transaction((batch: typeof rows) => {
      for (const row of batch)
        statement.run(Object.fromEntries(names.map((name) => [name, row[name] ?? null])));
    });
    insertAll(rows);
  }

  private writeListPrices(): void {
    const table = systemTables.find((candidate) => candidate.name === 'system.billing.list_prices')!;
    const rows = listPrices.flatMap(({ cloud, sku, previousUsd, usd }) => {
      const row = {
        account_id: this.accountId,
        sku_name: sku,
        cloud,
        currency_code: 'USD',
        usage_unit: 'DBU',
        _visible_at: 0,
      };
      const pricing = (price: number) => {
        const text = price.toFixed(2);
        return json({ default: text, promotional: { default: text }, effective_list: { default: text } });
      };
      return [
        // an older price, superseded: the join has to respect the validity window
        {
          ...row,
          price_start_time: iso(Date.UTC(2023, 0, 1)),
          price_end_time: iso(Date.UTC(2024, 0, 1)),
          pricing: pricing(previousUsd),
        },
        { ...row, price_start_time: iso(Date.UTC(2024, 0, 1)), price_end_time: null, pricing: pricing(usd) },
      ];
    });
    this.insert(table, rows);
  }

  /** Writes the rows of every cluster that terminated and every run that ended by now. */
  sync(): void {
    const now = this.deps.clock.now();
    for (const cluster of this.deps.state.clusters.values()) {
      if (this.clustersWritten.has(cluster.clusterId)) continue;
      if (clusterTimes(cluster).terminatedMs > now) continue;
      this.clustersWritten.add(cluster.clusterId);
      this.writeCluster(cluster);
    }
    const ids = { accountId: this.accountId, workspaceId: this.deps.workspaceId };
    for (const cluster of this.deps.state.allPurposeClusters.values()) {
      this.insert(
        this.table('system.compute.clusters'),
        allPurposeClusterRows(cluster, this.allPurposeWritten, ids),
      );
      this.insert(
        this.table('system.billing.usage'),
        allPurposeBillingRows(cluster, now, this.allPurposeWritten, {
          ...ids,
          billingLagMs: this.billingLagMs,
        }),
      );
    }
    for (const run of this.deps.state.runs.values()) {
      if (this.runsWritten.has(run.runId) || run.endMs > now) continue;
      this.runsWritten.add(run.runId);
      this.writeRun(run);
    }
  }

  private table(name: string): TableDefinition {
    return systemTables.find((table) => table.name === name)!;
  }

  /** Node usage of the cluster in absolute time, clipped to a cancelled cluster's shortened life. */
  private nodesOf(cluster: ClusterRecord) {
    const times = clusterTimes(cluster);
    return cluster.simulation.usage
      .map((usage, index) => ({
        index,
        usage,
        fromMs: cluster.requestedAtMs + usage.fromMs,
        toMs: Math.min(cluster.requestedAtMs + usage.toMs, times.terminatedMs),
      }))
      .filter((node) => node.toMs > node.fromMs);
  }

  private writeCluster(cluster: ClusterRecord): void {
    const { workspaceId } = this.deps;
    const times = clusterTimes(cluster);
    const spec = cluster.spec;
    const base = {
      account_id: this.accountId,
      workspace_id: workspaceId,
    };
    this.insert(this.table('system.compute.clusters'), [
      {
        ...base,
        cluster_id: cluster.clusterId,
        cluster_name: cluster.clusterName,
        owned_by: workspaceUser.userName,
        create_time: iso(times.requestedMs),
        delete_time: iso(times.terminatedMs),
        // the configured types; the node timeline says which ran (a flexible node type's alternate)
        driver_node_type:
          cluster.spec.driver_node_type_id ??
          cluster.spec.node_type_id ??
          cluster.sim.driverNodeType.nodeTypeId,
        worker_node_type: cluster.spec.node_type_id ?? cluster.sim.nodeType.nodeTypeId,
        worker_count: cluster.sim.workers.kind === 'fixed' ? cluster.sim.workers.count : null,
        min_autoscale_workers: cluster.sim.workers.kind === 'autoscale' ? cluster.sim.workers.min : null,
        max_autoscale_workers: cluster.sim.workers.kind === 'autoscale' ? cluster.sim.workers.max : null,
        auto_termination_minutes: 0,
        enable_elastic_disk: 0,
        tags: json({ ...(spec.custom_tags ?? {}), ClusterName: cluster.clusterName }),
        cluster_source: 'JOB',
        init_scripts: json([]),
        aws_attributes: cluster.sim.nodeType.cloud === 'AWS' ? json(spec.aws_attributes ?? {}) : null,
        azure_attributes: cluster.sim.nodeType.cloud === 'Azure' ? json(spec.azure_attributes ?? {}) : null,
        gcp_attributes: null,
        driver_instance_pool_id: null,
        worker_instance_pool_id: null,
        dbr_version: cluster.sim.sparkVersion,
        change_time: iso(times.requestedMs),
        change_date: day(times.requestedMs),
        data_security_mode: 'SINGLE_USER',
        policy_id: null,
        _visible_at: times.requestedMs,
      },
    ]);
    this.writeNodeTimeline(cluster);
    this.writeBilling(cluster);
  }

  private writeNodeTimeline(cluster: ClusterRecord): void {
    const nodes = this.nodesOf(cluster);
    const busy = busyByMinute(cluster);
    const noise = createRandom(deriveSeed(this.deps.seed, cluster.clusterId, 'node-timeline'));
    const workerCoresAt = (minute: number) =>
      nodes
        .filter(
          (node) => node.usage.role === 'worker' && node.fromMs < minute + minuteMs && node.toMs > minute,
        )
        .reduce((sum, node) => sum + node.usage.node.cores, 0);
    const rows: Array<Row & { _visible_at: number }> = [];
    for (const node of nodes) {
      // the same instance ids as clusters/get and the NODES_LOST events
      const instanceId =
        node.usage.role === 'driver'
          ? driverInstanceId(cluster)
          : (node.usage.instanceId ??
            `i-${stableId(cluster.clusterId, node.index).replaceAll('-', '').slice(0, 17)}`);
      const ip = `10.${(node.index * 7) % 250}.${node.index % 250}.${10 + (node.index % 200)}`;
      const driver = node.usage.role === 'driver';
      for (
        let minute = Math.floor(node.fromMs / minuteMs) * minuteMs;
        minute < node.toMs;
        minute += minuteMs
      ) {
        const load = busy.get(minute);
        const cores = workerCoresAt(minute);
        const share = driver || !load || cores === 0 ? 0 : Math.min(1, load.busyCoreMs / (cores * minuteMs));
        const jitter = 0.9 + noise.next() * 0.2;
        const user = driver ? 3 + noise.next() * 4 : Math.min(99, share * 85 * jitter);
        const bytes =
          driver || !load || cores === 0 ? 0 : (load.shuffleBytes * node.usage.node.cores) / cores;
        rows.push({
          account_id: this.accountId,
          workspace_id: this.deps.workspaceId,
          cluster_id: cluster.clusterId,
          instance_id: instanceId,
          start_time: iso(minute),
          end_time: iso(minute + minuteMs),
          driver: driver ? 1 : 0,
          cpu_user_percent: round2(user),
          cpu_system_percent: round2(driver ? 1 : 2 + share * 6 * jitter),
          cpu_wait_percent: round2(driver ? 0.2 : share * 4 * jitter),
          mem_used_percent: round2(driver ? 35 + noise.next() * 10 : 20 + share * 60 * jitter),
          mem_swap_percent: 0,
          network_sent_bytes: Math.round(bytes / 2),
          network_received_bytes: Math.round(bytes / 2),
          disk_free_bytes_per_mount_point: json({ '/': 60_000_000_000, '/local_disk0': 150_000_000_000 }),
          node_type: node.usage.node.nodeTypeId,
          private_ip: ip,
          _visible_at: minute + minuteMs,
        });
      }
    }
    this.insert(this.table('system.compute.node_timeline'), rows);
  }

  /** Hourly DBU records per SKU, as Databricks bills classic job compute; some restated later. */
  private writeBilling(cluster: ClusterRecord): void {
    const photon = cluster.sim.photon;
    const perHour = new Map<number, number>();
    for (const node of this.nodesOf(cluster)) {
      const dbuPerMs =
        (node.usage.node.dbuPerCoreHour * node.usage.node.cores * (photon ? photonDbuMultiplier : 1)) /
        hourMs;
      addUsageByHour(perHour, node.fromMs, node.toMs, dbuPerMs);
    }
    const run = this.deps.state.runs.get(cluster.runId);
    const restate = createRandom(deriveSeed(this.deps.seed, cluster.clusterId, 'restatement'));
    const rows = hoursInOrder(perHour).flatMap(([hour, dbus]) =>
      publishedRecords(dbus, hour + hourMs + this.billingLagMs, restate, this.restatements).map((published) =>
        billingUsageRow({
          recordId: stableId(cluster.clusterId, hour, published.recordType.toLowerCase()),
          accountId: this.accountId,
          workspaceId: this.deps.workspaceId,
          sku: photon ? 'PREMIUM_JOBS_COMPUTE_(PHOTON)' : 'PREMIUM_JOBS_COMPUTE',
          cloud: cluster.sim.nodeType.cloud === 'Azure' ? 'AZURE' : 'AWS',
          hourMs: hour,
          dbus: published.quantity,
          customTags: cluster.spec.custom_tags ?? {},
          usage: {
            cluster_id: cluster.clusterId,
            job_id: cluster.jobId === undefined ? null : String(cluster.jobId),
            job_run_id: String(cluster.runId),
            warehouse_id: null,
            instance_pool_id: null,
            node_type: cluster.sim.nodeType.nodeTypeId,
            run_name: run?.runName ?? null,
            job_name: cluster.jobName,
          },
          identity: { run_as: workspaceUser.userName, owned_by: null },
          recordType: published.recordType,
          product: 'JOBS',
          features: { jobs_tier: 'CLASSIC', is_serverless: false, is_photon: photon },
          visibleAtMs: published.visibleAtMs,
        }),
      ),
    );
    this.insert(this.table('system.billing.usage'), rows);
  }

  private writeRun(run: RunRecord): void {
    const computeIds = [...new Set(run.tasks.flatMap((task) => (task.clusterId ? [task.clusterId] : [])))];
    const resultState = runResultState(run);
    const base = {
      account_id: this.accountId,
      workspace_id: this.deps.workspaceId,
      job_id: run.jobId === undefined ? null : String(run.jobId),
    };
    const firstExec = Math.min(...run.tasks.map((task) => task.execStartMs));
    const lastExec = Math.max(...run.tasks.map((task) => task.execEndMs));
    const runRows = hourlyPeriods(run.startMs, run.endMs).map((period, index, all) => {
      const last = index === all.length - 1;
      return {
        ...base,
        run_id: String(run.runId),
        period_start_time: iso(period.start),
        period_end_time: iso(period.end),
        trigger_type: run.trigger,
        run_type: run.runType,
        run_name: run.runName,
        compute_ids: json(computeIds),
        result_state: last ? resultState : null,
        termination_code: last ? terminationCode(resultState) : null,
        job_parameters: json(run.jobParameters ?? {}),
        setup_duration_seconds: last ? Math.round((firstExec - run.startMs) / 1000) : null,
        queue_duration_seconds: last ? 0 : null,
        run_duration_seconds: last ? Math.round((run.endMs - run.startMs) / 1000) : null,
        cleanup_duration_seconds: last ? Math.round((run.endMs - lastExec) / 1000) : null,
        execution_duration_seconds: last ? Math.round((lastExec - firstExec) / 1000) : null,
        _visible_at: period.end,
      };
    });
    this.insert(this.table('system.lakeflow.job_run_timeline'), runRows);
    const taskRows = run.tasks.flatMap((task) =>
      hourlyPeriods(task.startMs, task.endMs).map((period, index, all) => {
        const last = index === all.length - 1;
        return {
          ...base,
          run_id: String(task.runId),
          job_run_id: String(run.runId),
          parent_run_id: String(run.runId),
          period_start_time: iso(period.start),
          period_end_time: iso(period.end),
          task_key: task.taskKey,
          compute_ids: json(task.clusterId ? [task.clusterId] : []),
          result_state: last ? taskResultState(task.outcome) : null,
          termination_code: last ? terminationCode(taskResultState(task.outcome)) : null,
          task_parameters: json({}),
          setup_duration_seconds: last ? Math.round((task.execStartMs - task.startMs) / 1000) : null,
          cleanup_duration_seconds: last ? Math.round((task.endMs - task.execEndMs) / 1000) : null,
          execution_duration_seconds: last ? Math.round((task.execEndMs - task.execStartMs) / 1000) : null,
          _visible_at: period.end,
        };
      }),
    );
    this.insert(this.table('system.lakeflow.job_task_run_timeline'), taskRows);
    this.insert(
      this.table('system.billing.usage'),
      serverlessBillingRows(run, {
        accountId: this.accountId,
        workspaceId: this.deps.workspaceId,
        cloud: this.deps.cloud ?? 'aws',
        seed: this.deps.seed,
        billingLagMs: this.billingLagMs,
        restatements: this.restatements,
      }),
    );
  }

  /** Runs a Databricks SQL query over what is visible now; cells come back as strings, as INLINE JSON_ARRAY sends them. */
  execute(statement: string, parameters: Record<string, string | number | null> = {}): StatementResult {
    this.sync();
    let prepared: Database.Statement;
    try {
      prepared = this.db.prepare(toSqlite(statement));
    } catch (error) {
      throw sqlError(error);
    }
    if (!prepared.reader)
      throw new SqlError(
        '[NOT_SUPPORTED_COMMAND] system tables are read-only: only queries are accepted.',
        'BAD_REQUEST',
        '0A000',
      );
    let raw: unknown[][];
    try {
      raw = prepared.raw(true).all(parameters) as unknown[][];
    } catch (error) {
      throw sqlError(error);
    }
    const columns = prepared.columns().map((column, position): StatementColumn => {
      const typeText = this.viewColumnType(column.table, column.column) ?? inferType(raw, position);
      return { name: column.name, type_text: typeText, type_name: typeName(typeText), position };
    });
    const rows = raw.map((row) => row.map((cell, index) => formatCell(cell, columns[index]!.type_text)));
    return { columns, rows };
  }

  /** Types of columns read through the views (SQLite reports the stored table as their origin). */
  private viewColumnType(table: string | null, columnName: string | null): string | undefined {
    if (!table || !columnName) return undefined;
    const definition = systemTables.find((candidate) => storedName(candidate) === table);
    return definition?.columns.find((column) => column.name === columnName)?.type;
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function sqliteType(type: string): string {
  if (isNestedType(type) || type === 'STRING' || type === 'TIMESTAMP' || type === 'DATE') return 'TEXT';
  if (type === 'BIGINT' || type === 'INT' || type === 'BOOLEAN') return 'INTEGER';
  return 'REAL';
}

function typeName(typeText: string): string {
  return (typeText.match(/^[A-Z]+/)?.[0] ?? 'STRING').replace(/^INT$/, 'INT');
}

function inferType(rows: unknown[][], position: number): string {
  const value = rows.find((row) => row[position] !== null && row[position] !== undefined)?.[position];
  if (typeof value === 'number') return Number.isInteger(value) ? 'BIGINT' : 'DOUBLE';
  if (typeof value === 'bigint') return 'BIGINT';
  return 'STRING';
}

function formatCell(cell: unknown, typeText: string): string | null {
  if (cell === null || cell === undefined) return null;
  if (typeText === 'BOOLEAN') return Number(cell) !== 0 ? 'true' : 'false';
  return String(cell);
}

function sqlError(error: unknown): SqlError {
  const message = error instanceof Error ? error.message : String(error);
  if (/no such table/.test(message))
    return new SqlError(
      `[TABLE_OR_VIEW_NOT_FOUND] ${message.replace('no such table: ', 'The table or view ')} cannot be found.`,
      'BAD_REQUEST',
      '42P01',
    );
  if (/no such column/.test(message))
    return new SqlError(`[UNRESOLVED_COLUMN] ${message}`, 'BAD_REQUEST', '42703');
  return new SqlError(`[PARSE_SYNTAX_ERROR] ${message}`, 'BAD_REQUEST', '42601');
}

function hourlyPeriods(startMs: number, endMs: number): Array<{ start: number; end: number }> {
  const periods = [];
  let start = startMs;
  while (start < endMs) {
    const end = Math.min(endMs, (Math.floor(start / hourMs) + 1) * hourMs);
    periods.push({ start, end });
    start = end;
  }
  return periods.length > 0 ? periods : [{ start: startMs, end: endMs }];
}

function runResultState(run: RunRecord): string {
  if (run.cancelledAtMs !== undefined) return 'CANCELLED';
  if (run.timedOutAtMs !== undefined) return 'TIMED_OUT';
  return run.tasks.every((task) => task.outcome === 'SUCCESS') ? 'SUCCEEDED' : 'FAILED';
}

function taskResultState(outcome: string): string {
  if (outcome === 'SUCCESS') return 'SUCCEEDED';
  if (outcome === 'CANCELED') return 'CANCELLED';
  if (outcome === 'TIMEDOUT') return 'TIMED_OUT';
  if (outcome === 'UPSTREAM_FAILED') return 'SKIPPED';
  return 'FAILED';
}

function terminationCode(resultState: string): string {
  return (
    { SUCCEEDED: 'SUCCESS', FAILED: 'RUN_EXECUTION_ERROR', CANCELLED: 'CANCELED', TIMED_OUT: 'TIMED_OUT' }[
      resultState
    ] ?? 'SKIPPED'
  );
}
