import type { StatementClient, StatementRow } from '../api/statements.js';

/** What system.billing.usage billed for one job run, priced with system.billing.list_prices. */
export interface RunBilling {
  dbus: number;
  usd: number;
  /** Billing records of the run (ORIGINAL, RETRACTION, RESTATEMENT). */
  records: number;
  /** RETRACTION and RESTATEMENT records among them. */
  corrections: number;
  /** End of the latest hour billed so far (NaN: no record): each hour is published on its own. */
  billedUntilMs: number;
}

/** One instance's first and last minute in system.compute.node_timeline. */
export interface InstanceMinutes {
  instanceId: string;
  /** Start of the instance's first per-minute row. */
  firstStartMs: number;
  /** End of the instance's last per-minute row. */
  lastEndMs: number;
}

/** One node type and role of a cluster over its life, from system.compute.node_timeline. */
export interface NodeUsageSummary {
  nodeType: string;
  driver: boolean;
  nodes: number;
  nodeMinutes: number;
  firstStartMs: number;
  lastEndMs: number;
  cpuUserPercent: number;
  cpuSystemPercent: number;
  cpuWaitPercent: number;
  memUsedPercent: number;
  memUsedMaxPercent: number;
  networkSentBytes: number;
  networkReceivedBytes: number;
  /** Each instance of this type and role, for timing it from its own start to its own end. */
  instances: InstanceMinutes[];
}

/** The cluster as configured at run time (system.compute.clusters) and the run's timeline (lakeflow). */
export interface ClusterAndTimeline {
  cluster: {
    clusterId: string;
    driverNodeType: string | null;
    workerNodeType: string | null;
    workerCount: number | null;
    minAutoscaleWorkers: number | null;
    maxAutoscaleWorkers: number | null;
    dbrVersion: string | null;
    availability: string | null;
    firstOnDemand: number | null;
  } | null;
  run: { startMs: number; endMs: number; resultState: string | null; executionSeconds: number | null } | null;
}

const num = (value: string | null | undefined): number =>
  value === null || value === undefined ? 0 : Number(value);
const optionalNum = (value: string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);
const time = (value: string | null | undefined): number => (value ? Date.parse(value) : Number.NaN);

interface InstanceTotals {
  nodeType: string;
  driver: boolean;
  instances: InstanceMinutes[];
  minutes: number;
  cpuUser: number;
  cpuSystem: number;
  cpuWait: number;
  memUsed: number;
  memUsedMax: number;
  netSent: number;
  netReceived: number;
}

/** Per-instance rows summed per node type and role; averages are over every node-minute, as AVG would give. */
function summarizeInstances(rows: StatementRow[]): NodeUsageSummary[] {
  const groups = new Map<string, InstanceTotals>();
  for (const row of rows) {
    const nodeType = row.node_type ?? 'unknown';
    const driver = row.driver === 'true';
    const key = `${nodeType}|${driver}`;
    const group = groups.get(key) ?? {
      nodeType,
      driver,
      instances: [],
      minutes: 0,
      cpuUser: 0,
      cpuSystem: 0,
      cpuWait: 0,
      memUsed: 0,
      memUsedMax: 0,
      netSent: 0,
      netReceived: 0,
    };
    group.instances.push({
      instanceId: row.instance_id ?? `unnamed-${group.instances.length}`,
      firstStartMs: time(row.first_start),
      lastEndMs: time(row.last_end),
    });
    group.minutes += num(row.node_minutes);
    group.cpuUser += num(row.cpu_user);
    group.cpuSystem += num(row.cpu_system);
    group.cpuWait += num(row.cpu_wait);
    group.memUsed += num(row.mem_used);
    group.memUsedMax = Math.max(group.memUsedMax, num(row.mem_used_max));
    group.netSent += num(row.net_sent);
    group.netReceived += num(row.net_received);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => {
    const perMinute = (total: number) => (group.minutes > 0 ? total / group.minutes : 0);
    return {
      nodeType: group.nodeType,
      driver: group.driver,
      nodes: group.instances.length,
      nodeMinutes: group.minutes,
      firstStartMs: Math.min(...group.instances.map((instance) => instance.firstStartMs)),
      lastEndMs: Math.max(...group.instances.map((instance) => instance.lastEndMs)),
      cpuUserPercent: perMinute(group.cpuUser),
      cpuSystemPercent: perMinute(group.cpuSystem),
      cpuWaitPercent: perMinute(group.cpuWait),
      memUsedPercent: perMinute(group.memUsed),
      memUsedMaxPercent: group.memUsedMax,
      networkSentBytes: group.netSent,
      networkReceivedBytes: group.netReceived,
      instances: group.instances,
    };
  });
}

/** Per job run: DBUs billed, every record summed (a retraction cancels its original), priced in its validity window. */
export const runBillingSql = `
SELECT COALESCE(SUM(u.usage_quantity), 0) AS dbus,
       COALESCE(SUM(u.usage_quantity * p.pricing.default), 0) AS usd,
       COUNT(*) AS records,
       COALESCE(SUM(CASE WHEN u.record_type IN ('RETRACTION', 'RESTATEMENT') THEN 1 ELSE 0 END), 0) AS corrections,
       MAX(u.usage_end_time) AS billed_until
FROM system.billing.usage u
JOIN system.billing.list_prices p
  ON u.sku_name = p.sku_name AND u.cloud = p.cloud AND u.usage_unit = p.usage_unit
 AND u.usage_end_time >= p.price_start_time
 AND (p.price_end_time IS NULL OR u.usage_end_time < p.price_end_time)
WHERE u.usage_metadata.job_run_id = :job_run_id AND u.usage_metadata.cluster_id = :cluster_id
  AND u.usage_unit = 'DBU'`;

/** Per instance (summed per node type and role by the reader): one statement gives both the usage and each node's life. */
export const nodeUsageSql = `
SELECT instance_id, node_type, driver, COUNT(*) AS node_minutes,
       MIN(start_time) AS first_start, MAX(end_time) AS last_end,
       SUM(cpu_user_percent) AS cpu_user, SUM(cpu_system_percent) AS cpu_system, SUM(cpu_wait_percent) AS cpu_wait,
       SUM(mem_used_percent) AS mem_used, MAX(mem_used_percent) AS mem_used_max,
       SUM(network_sent_bytes) AS net_sent, SUM(network_received_bytes) AS net_received
FROM system.compute.node_timeline
WHERE cluster_id = :cluster_id
GROUP BY instance_id, node_type, driver`;

/** One statement for both: the latest cluster change before the run ended, beside the run's timeline. */
export const clusterAndTimelineSql = `
SELECT c.cluster_id, c.driver_node_type, c.worker_node_type, c.worker_count, c.min_autoscale_workers,
       c.max_autoscale_workers, c.dbr_version, c.aws_attributes.availability AS aws_availability,
       c.aws_attributes.first_on_demand AS aws_first_on_demand, c.azure_attributes.availability AS azure_availability,
       c.azure_attributes.first_on_demand AS azure_first_on_demand,
       r.run_start, r.run_end, r.result_state, r.execution_seconds
FROM (SELECT :job_run_id AS run_id) k
LEFT JOIN (
  SELECT run_id, MIN(period_start_time) AS run_start, MAX(period_end_time) AS run_end,
         MAX(result_state) AS result_state, MAX(execution_duration_seconds) AS execution_seconds
  FROM system.lakeflow.job_run_timeline WHERE run_id = :job_run_id GROUP BY run_id
) r ON r.run_id = k.run_id
LEFT JOIN (
  SELECT * FROM system.compute.clusters WHERE cluster_id = :cluster_id ORDER BY change_time DESC LIMIT 1
) c ON 1 = 1`;

/**
 * Reads a job run through system tables in three statements: its billing, its nodes' per-minute
 * utilization summed per node type, and its cluster as configured with the run's timeline.
 */
export function createSystemTablesReader(statements: StatementClient) {
  /** The DBUs one cluster of a job run was billed (a multi-cluster job bills each separately). */
  async function billing(jobRunId: string, clusterId: string): Promise<RunBilling> {
    const [row] = await statements.query(runBillingSql, [
      { name: 'job_run_id', value: jobRunId },
      { name: 'cluster_id', value: clusterId },
    ]);
    return {
      dbus: num(row?.dbus),
      usd: num(row?.usd),
      records: num(row?.records),
      corrections: num(row?.corrections),
      billedUntilMs: time(row?.billed_until),
    };
  }

  async function nodeUsage(clusterId: string): Promise<NodeUsageSummary[]> {
    const rows = await statements.query(nodeUsageSql, [{ name: 'cluster_id', value: clusterId }]);
    return summarizeInstances(rows);
  }

  async function clusterAndTimeline(clusterId: string, jobRunId: string): Promise<ClusterAndTimeline> {
    const [row] = await statements.query(clusterAndTimelineSql, [
      { name: 'cluster_id', value: clusterId },
      { name: 'job_run_id', value: jobRunId },
    ]);
    return {
      cluster: row?.cluster_id
        ? {
            clusterId: row.cluster_id,
            driverNodeType: row.driver_node_type ?? null,
            workerNodeType: row.worker_node_type ?? null,
            workerCount: optionalNum(row.worker_count),
            minAutoscaleWorkers: optionalNum(row.min_autoscale_workers),
            maxAutoscaleWorkers: optionalNum(row.max_autoscale_workers),
            dbrVersion: row.dbr_version ?? null,
            availability: row.aws_availability ?? row.azure_availability ?? null,
            firstOnDemand: optionalNum(row.aws_first_on_demand ?? row.azure_first_on_demand),
          }
        : null,
      run: row?.run_start
        ? {
            startMs: time(row.run_start),
            endMs: time(row.run_end),
            resultState: row.result_state ?? null,
            executionSeconds: optionalNum(row.execution_seconds),
          }
        : null,
    };
  }

  /** One statement touching every table Setpoint reads: proves the grants and shows what is there. */
  async function probe(sinceMs: number) {
    const since = new Date(sinceMs).toISOString();
    const [row] = await statements.query(
      `SELECT (SELECT COUNT(*) FROM system.billing.usage WHERE usage_start_time >= :since) AS usage_records,
              (SELECT COUNT(*) FROM system.billing.list_prices) AS prices,
              (SELECT COUNT(*) FROM system.compute.clusters WHERE change_time >= :since) AS clusters,
              (SELECT COUNT(*) FROM system.compute.node_timeline WHERE start_time >= :since) AS node_minutes,
              (SELECT COUNT(*) FROM system.lakeflow.job_run_timeline WHERE period_start_time >= :since) AS run_periods,
              (SELECT COUNT(*) FROM system.lakeflow.job_task_run_timeline WHERE period_start_time >= :since) AS task_periods`,
      [{ name: 'since', value: since, type: 'TIMESTAMP' }],
    );
    return {
      usageRecords: num(row?.usage_records),
      prices: num(row?.prices),
      clusters: num(row?.clusters),
      nodeMinutes: num(row?.node_minutes),
      runPeriods: num(row?.run_periods),
      taskPeriods: num(row?.task_periods),
    };
  }

  return {
    billing,
    nodeUsage,
    clusterAndTimeline,
    probe,
    /** Statements sent through this reader so far. */
    get statementsSent() {
      return statements.statementsSent;
    },
  };
}

export type SystemTablesReader = ReturnType<typeof createSystemTablesReader>;
