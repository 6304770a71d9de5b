import type { FastifyInstance } from 'fastify';
import { nodeTypes } from '../physics/node-types.js';
import { allPurposeClusterJson, allPurposeEvents } from './all-purpose-clusters.js';
import { invalidParameter } from './api-errors.js';
import { clusterEventsAt } from './cluster-timeline.js';
import { clusterJson, stringifyWithInt64 } from './cluster-views.js';
import type { EmulatorContext } from './emulator-context.js';
import type { ClusterRecord } from './emulator-state.js';
import { type NodeSpecSource, nodeSpec } from './node-specs.js';
import { type ApiVersion, parseWith, type RouteKit, registerApi } from './route-kit.js';
import { decodePageToken, encodePageToken } from './run-views.js';
import {
  allPurposeClusterBodySchema,
  clusterEventsBodySchema,
  clusterIdBodySchema,
  editClusterBodySchema,
} from './schema.js';
import type { WorkspaceCloud } from './shipped-jobs.js';
import { sparkVersionsJson } from './spark-versions.js';

const clusterVersions: ApiVersion[] = ['2.0', '2.1'];

export function requireCluster(context: EmulatorContext, clusterId: string | undefined): ClusterRecord {
  if (!clusterId) throw invalidParameter('Missing required field: cluster_id');
  const cluster = context.state.clusters.get(clusterId);
  if (!cluster) throw invalidParameter(`Cluster ${clusterId} does not exist`);
  return cluster;
}

/** `clusters/list-node-types` of a workspace on `cloud`: that cloud's node types only, as Databricks lists them. */
export function nodeTypesJson(
  specs: NodeSpecSource | undefined,
  cloud: WorkspaceCloud,
): Record<string, unknown>[] {
  const ofCloud = nodeTypes.filter((type) => type.cloud.toLowerCase() === cloud);
  return ofCloud.map((type, index) => {
    const spec = nodeSpec(type, specs);
    const localDiskGb = spec.localNvmeGb ?? Math.round(type.localDiskGbPerCore * type.cores);
    return {
      node_type_id: type.nodeTypeId,
      instance_type_id: type.nodeTypeId,
      memory_mb: spec.memoryMb,
      num_cores: spec.cores,
      num_gpus: 0,
      description: type.nodeTypeId,
      category: type.category,
      is_deprecated: false,
      is_hidden: false,
      is_graviton: type.isGraviton,
      is_io_cache_enabled: type.localDisk === 'nvme',
      is_encrypted_in_transit: false,
      photon_driver_capable: type.photonCapable,
      photon_worker_capable: type.photonCapable,
      support_ebs_volumes: type.cloud === 'AWS',
      support_cluster_tags: true,
      support_port_forwarding: true,
      display_order: index,
      node_instance_type: {
        instance_type_id: type.nodeTypeId,
        local_disks: type.localDisk === 'none' ? 0 : 1,
        local_disk_size_gb: localDiskGb,
        ...(type.localDisk === 'nvme' ? { local_nvme_disks: 1, local_nvme_disk_size_gb: localDiskGb } : {}),
      },
    };
  });
}

export function registerClustersRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  const { clock, state } = context;

  const { allPurpose } = context;

  registerApi(app, kit, 'GET', '/clusters/get', clusterVersions, ({ query }) => {
    const shared = query.cluster_id ? allPurpose.find(query.cluster_id) : undefined;
    if (shared) return stringifyWithInt64(allPurposeClusterJson(shared, clock.now()));
    const cluster = requireCluster(context, query.cluster_id);
    return stringifyWithInt64(clusterJson(cluster, clock.now()));
  });

  registerApi(app, kit, 'GET', '/clusters/list', clusterVersions, () => {
    const now = clock.now();
    const shared = [...state.allPurposeClusters.values()]
      .filter((cluster) => !cluster.permanentlyDeleted)
      .map((cluster) => ({ at: cluster.createdMs, json: allPurposeClusterJson(cluster, now) }));
    const jobClusters = [...state.clusters.values()].map((cluster) => ({
      at: cluster.requestedAtMs,
      json: clusterJson(cluster, now),
    }));
    const clusters = [...shared, ...jobClusters].sort((a, b) => b.at - a.at).map((entry) => entry.json);
    return stringifyWithInt64({ clusters });
  });

  // All-purpose clusters: what a script drives with clusters.create_and_wait, edit, start, restart, delete.
  registerApi(app, kit, 'POST', '/clusters/create', clusterVersions, ({ body, request }) => {
    const cluster = allPurpose.create(request.url, parseWith(allPurposeClusterBodySchema, body));
    return { cluster_id: cluster.clusterId };
  });
  registerApi(app, kit, 'POST', '/clusters/edit', clusterVersions, ({ body, request }) => {
    const edit = parseWith(editClusterBodySchema, body);
    allPurpose.edit(request.url, edit.cluster_id, edit);
    return {};
  });
  registerApi(app, kit, 'POST', '/clusters/start', clusterVersions, ({ body }) => {
    allPurpose.start(parseWith(clusterIdBodySchema, body).cluster_id);
    return {};
  });
  registerApi(app, kit, 'POST', '/clusters/restart', clusterVersions, ({ body }) => {
    allPurpose.restart(parseWith(clusterIdBodySchema, body).cluster_id);
    return {};
  });
  registerApi(app, kit, 'POST', '/clusters/delete', clusterVersions, ({ body }) => {
    allPurpose.terminate(parseWith(clusterIdBodySchema, body).cluster_id);
    return {};
  });
  registerApi(app, kit, 'POST', '/clusters/permanent-delete', clusterVersions, ({ body }) => {
    allPurpose.permanentlyDelete(parseWith(clusterIdBodySchema, body).cluster_id);
    return {};
  });

  registerApi(app, kit, 'GET', '/clusters/list-node-types', clusterVersions, () => ({
    node_types: nodeTypesJson(context.nodeSpecs, context.cloud),
  }));

  registerApi(app, kit, 'GET', '/clusters/spark-versions', clusterVersions, () => ({
    versions: sparkVersionsJson(),
  }));

  registerApi(app, kit, 'POST', '/clusters/events', clusterVersions, ({ body }) => {
    const request = parseWith(clusterEventsBodySchema, body);
    const shared = allPurpose.find(request.cluster_id);
    const jobCluster = shared ? undefined : requireCluster(context, request.cluster_id);
    const clusterId = request.cluster_id;
    const types = request.event_types ? new Set(request.event_types) : undefined;
    const order = request.order ?? 'DESC';
    const happened = jobCluster
      ? clusterEventsAt(jobCluster, clock.now())
      : allPurposeEvents(shared!, clock.now());
    const events = happened
      .filter((event) => types === undefined || types.has(event.type))
      .filter((event) => request.start_time === undefined || event.timestamp >= request.start_time)
      .filter((event) => request.end_time === undefined || event.timestamp <= request.end_time)
      .sort((a, b) => (order === 'ASC' ? a.timestamp - b.timestamp : b.timestamp - a.timestamp));
    const tokenStyle = request.page_token !== undefined || request.page_size !== undefined;
    const size = tokenStyle ? request.page_size || 50 : request.limit || 50;
    const offset =
      request.page_token !== undefined ? decodePageToken(request.page_token) : (request.offset ?? 0);
    const page = events.slice(offset, offset + size);
    const more = offset + size < events.length;
    const { page_token: _token, ...legacy } = request;
    return {
      events: page.map((event) => ({
        cluster_id: clusterId,
        timestamp: event.timestamp,
        type: event.type,
        details: event.details,
      })),
      total_count: events.length,
      ...(more
        ? {
            next_page_token: encodePageToken(offset + size),
            next_page: { ...legacy, offset: offset + size, limit: size },
          }
        : {}),
      ...(offset > 0 ? { prev_page_token: encodePageToken(Math.max(0, offset - size)) } : {}),
    };
  });
}
