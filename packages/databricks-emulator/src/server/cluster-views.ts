import { clusterTimes } from './cluster-timeline.js';
import type { ClusterRecord } from './emulator-state.js';
import { clusterWithDefaults } from './job-settings.js';
import { workspaceUser } from './workspace-user.js';

type Json = Record<string, unknown>;

/** The marker replaced by raw digits when the answer is serialized (see `stringifyWithInt64`). */
const int64Marker = '__int64__:';

export function int64(digits: string): string {
  return `${int64Marker}${digits}`;
}

/** JSON with int64 values written as bare numbers beyond 2^53, the way the real clusters API writes them. */
export function stringifyWithInt64(value: unknown): string {
  return JSON.stringify(value).replace(/"__int64__:(\d+)"/g, '$1');
}

function clusterState(cluster: ClusterRecord, now: number): { state: string; message: string } {
  const times = clusterTimes(cluster);
  if (now < times.readyMs)
    return {
      state: 'PENDING',
      message: 'Finding instances for new nodes, acquiring more instances if necessary',
    };
  if (now < times.terminatingMs) return { state: 'RUNNING', message: '' };
  if (now < times.terminatedMs) return { state: 'TERMINATING', message: 'Terminating the cluster' };
  return { state: 'TERMINATED', message: 'Job finished.' };
}

/** The driver's cloud instance, as clusters/get and system.compute.node_timeline name it. */
export function driverInstanceId(cluster: ClusterRecord): string {
  return `i-${cluster.identity.sparkContextId.slice(0, 17)}`;
}

export function clusterJson(cluster: ClusterRecord, now: number): Json {
  const times = clusterTimes(cluster);
  const { state, message } = clusterState(cluster, now);
  const spec = clusterWithDefaults(cluster.spec);
  const nodeType = cluster.sim.nodeType;
  const started = now >= times.readyMs;
  const liveExecutors = cluster.simulation.executors.filter(
    (executor) =>
      cluster.requestedAtMs + executor.addedMs <= now &&
      (executor.removedMs === undefined || cluster.requestedAtMs + executor.removedMs > now),
  );
  const workers = started && state === 'RUNNING' ? liveExecutors.length : 0;
  const terminated = state === 'TERMINATED';
  const json: Json = {
    cluster_id: cluster.clusterId,
    cluster_name: cluster.clusterName,
    ...spec,
    driver_node_type_id: spec.driver_node_type_id ?? spec.node_type_id,
    spark_context_id: int64(cluster.identity.sparkContextId),
    jdbc_port: 10000,
    cluster_source: 'JOB',
    creator_user_name: workspaceUser.userName,
    state,
    state_message: message,
    start_time: cluster.requestedAtMs,
    ...(terminated ? { terminated_time: times.terminatedMs } : {}),
    last_state_loss_time: 0,
    autotermination_minutes: 0,
    enable_elastic_disk: false,
    disk_spec: { disk_count: cluster.sim.ebs.count },
    init_scripts_safe_mode: false,
    cluster_cores: nodeType.cores * workers + cluster.sim.driverNodeType.cores,
    cluster_memory_mb: nodeType.memoryMb * workers + cluster.sim.driverNodeType.memoryMb,
    default_tags: {
      Vendor: 'Databricks',
      Creator: workspaceUser.userName,
      ClusterName: cluster.clusterName,
      ClusterId: cluster.clusterId,
      ...(cluster.jobId === undefined ? {} : { JobId: String(cluster.jobId) }),
      RunName: cluster.jobName,
    },
    spec: cluster.spec,
  };
  if (started) {
    json.driver = {
      private_ip: cluster.identity.driverIp,
      host_private_ip: cluster.identity.driverIp,
      node_id: `driver-${cluster.clusterId}`,
      instance_id: driverInstanceId(cluster),
      start_timestamp: times.readyMs,
      node_aws_attributes: { is_spot: false },
    };
    json.executors = liveExecutors.map((executor) => ({
      private_ip: executor.host,
      host_private_ip: executor.host,
      node_id: `node-${executor.executorId}`,
      instance_id: executor.instanceId,
      start_timestamp: cluster.requestedAtMs + executor.addedMs,
      node_aws_attributes: { is_spot: executor.spot },
    }));
  }
  if (terminated) {
    const reason =
      cluster.cutAtMs !== undefined &&
      cluster.cutAtMs < cluster.requestedAtMs + cluster.simulation.terminatingMs
        ? { code: 'USER_REQUEST', type: 'SUCCESS', parameters: { username: workspaceUser.userName } }
        : { code: 'JOB_FINISHED', type: 'SUCCESS', parameters: {} };
    json.termination_reason = reason;
  }
  if (cluster.spec.cluster_log_conf) {
    json.cluster_log_status =
      cluster.lastLogAttemptMs === undefined ? {} : { last_attempted: cluster.lastLogAttemptMs };
  }
  return json;
}
