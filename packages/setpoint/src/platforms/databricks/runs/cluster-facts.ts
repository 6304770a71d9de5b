import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { ClusterFacts } from '../../../service/runs/run-records.js';
import { photonOf } from '../cluster-shape/cluster-shape.js';
import type { ClusterReport } from './cluster-report.js';
import { nodeTypeThatRan } from './node-types-ran.js';

/** Cluster facts from the uploaded cluster report when there is one, else the event log's hints. */
export function clusterFacts(report: ClusterReport | null, profile: RunProfile | null): ClusterFacts {
  if (report) {
    const cluster = report.cluster;
    const aws = cluster.aws_attributes;
    const azure = cluster.azure_attributes;
    const availability = aws?.availability ?? azure?.availability ?? null;
    return {
      source: 'cluster_report',
      cloud: aws ? 'aws' : azure ? 'azure' : (profile?.platform.cloud ?? null),
      region: profile?.platform.region ?? null,
      nodeTypeId: cluster.node_type_id ?? null,
      driverNodeTypeId: cluster.driver_node_type_id ?? cluster.node_type_id ?? null,
      workers: cluster.num_workers ?? null,
      autoscale: cluster.autoscale
        ? { minWorkers: cluster.autoscale.min_workers, maxWorkers: cluster.autoscale.max_workers }
        : null,
      photon: photonOf(cluster, profile?.platform.photon ?? null),
      availability,
      sparkVersion: cluster.spark_version ?? profile?.platform.runtimeVersion ?? null,
      ...ranOnOf(report),
    };
  }
  const hints = profile?.platform;
  return {
    source: 'eventlog',
    cloud: hints?.cloud ?? null,
    region: hints?.region ?? null,
    nodeTypeId: hints?.workerNodeType ?? null,
    driverNodeTypeId: hints?.driverNodeType ?? null,
    workers: hints?.workers ?? (profile ? profile.executors.maxConcurrent : null),
    autoscale: hints?.autoscale ?? null,
    photon: hints?.photon ?? null,
    availability: hints?.availability ?? null,
    sparkVersion: hints?.runtimeVersion ?? profile?.application.sparkVersion ?? null,
  };
}

/** The instance timeline of a run: cloud instances from the report, else executors from the log. */
export function clusterTimeline(report: ClusterReport | null, profile: RunProfile | null) {
  if (report?.instance_timelines?.length) {
    return { source: 'cluster_report' as const, instances: report.instance_timelines };
  }
  return {
    source: 'eventlog' as const,
    executors: (profile?.executors.timeline ?? []).map((executor) => ({
      id: executor.id,
      host: executor.host,
      cores: executor.cores,
      addedTime: executor.addedTime,
      removedTime: executor.removedTime,
    })),
  };
}

/** The node types the node timeline says ran, where they are not the cluster's own (a flexible alternate). */
function ranOnOf(report: ClusterReport): Pick<ClusterFacts, 'ranOn'> {
  const worker = report.cluster.node_type_id;
  const driver = report.cluster.driver_node_type_id ?? worker;
  const ranWorker = worker ? nodeTypeThatRan(report.node_types_ran, false, worker) : null;
  const ranDriver = driver ? nodeTypeThatRan(report.node_types_ran, true, driver) : null;
  return ranWorker || ranDriver ? { ranOn: { nodeTypeId: ranWorker, driverNodeTypeId: ranDriver } } : {};
}
