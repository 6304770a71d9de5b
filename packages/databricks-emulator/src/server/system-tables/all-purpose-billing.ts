import { allPurposeDbusByHour } from '../all-purpose-clusters.js';
import type { AllPurposeCluster } from '../emulator-state.js';
import { workspaceUser } from '../workspace-user.js';
import { billingUsageRow, hourMs, hoursInOrder } from './billing-usage.js';
import { day, iso, json, stableId } from './record-values.js';

export interface AllPurposeRowsOptions {
  accountId: string;
  workspaceId: string;
  billingLagMs: number;
}

/**
 * The usage records of an all-purpose cluster for the clock hours that ended by `nowMs` and are not in
 * `billed` yet (the set is updated): one record per hour under the all-purpose SKU with the cluster's id.
 * The jobs that ran on it are not named: Databricks fills `usage_metadata.job_id` for jobs compute and
 * serverless only, so a job on a shared cluster has no cost of its own in the bill.
 */
export function allPurposeBillingRows(
  cluster: AllPurposeCluster,
  nowMs: number,
  billed: Set<string>,
  options: AllPurposeRowsOptions,
) {
  const rows = [];
  for (const [hour, dbus] of hoursInOrder(allPurposeDbusByHour(cluster, nowMs))) {
    const key = `billed ${cluster.clusterId}@${hour}`;
    if (billed.has(key)) continue;
    billed.add(key);
    const life =
      cluster.lives.findLast((candidate) => candidate.startMs < hour + hourMs) ?? cluster.lives[0]!;
    const photon = life.sim.photon;
    rows.push(
      billingUsageRow({
        recordId: stableId(cluster.clusterId, hour, 'all-purpose'),
        accountId: options.accountId,
        workspaceId: options.workspaceId,
        sku: photon ? 'PREMIUM_ALL_PURPOSE_COMPUTE_(PHOTON)' : 'PREMIUM_ALL_PURPOSE_COMPUTE',
        cloud: life.sim.nodeType.cloud === 'Azure' ? 'AZURE' : 'AWS',
        hourMs: hour,
        dbus,
        customTags: cluster.spec.custom_tags ?? {},
        usage: {
          cluster_id: cluster.clusterId,
          job_id: null,
          job_run_id: null,
          warehouse_id: null,
          instance_pool_id: null,
          node_type: life.sim.nodeType.nodeTypeId,
          run_name: null,
          job_name: null,
        },
        identity: { run_as: null, owned_by: workspaceUser.userName },
        recordType: 'ORIGINAL',
        product: 'ALL_PURPOSE',
        features: { jobs_tier: null, is_serverless: false, is_photon: photon },
        visibleAtMs: hour + hourMs + options.billingLagMs,
      }),
    );
  }
  return rows;
}

/** `system.compute.clusters`: one row per version of the cluster (created, then each edit). */
export function allPurposeClusterRows(
  cluster: AllPurposeCluster,
  written: Set<string>,
  options: Pick<AllPurposeRowsOptions, 'accountId' | 'workspaceId'>,
) {
  const rows = [];
  for (const version of cluster.versions) {
    const key = `version ${cluster.clusterId}@${version.atMs}`;
    if (written.has(key)) continue;
    written.add(key);
    const spec = version.spec;
    const autoscale = spec.autoscale;
    rows.push({
      account_id: options.accountId,
      workspace_id: options.workspaceId,
      cluster_id: cluster.clusterId,
      cluster_name: cluster.clusterName,
      owned_by: workspaceUser.userName,
      create_time: iso(cluster.createdMs),
      delete_time: null,
      driver_node_type: spec.driver_node_type_id ?? spec.node_type_id ?? null,
      worker_node_type: spec.node_type_id ?? null,
      worker_count: autoscale ? null : (spec.num_workers ?? 0),
      min_autoscale_workers: autoscale?.min_workers ?? null,
      max_autoscale_workers: autoscale?.max_workers ?? null,
      auto_termination_minutes: spec.autotermination_minutes ?? 0,
      enable_elastic_disk: 0,
      tags: json({ ...(spec.custom_tags ?? {}), ClusterName: cluster.clusterName }),
      cluster_source: 'API',
      init_scripts: json([]),
      aws_attributes: spec.aws_attributes ? json(spec.aws_attributes) : null,
      azure_attributes: spec.azure_attributes ? json(spec.azure_attributes) : null,
      gcp_attributes: null,
      driver_instance_pool_id: null,
      worker_instance_pool_id: null,
      dbr_version: spec.spark_version ?? null,
      change_time: iso(version.atMs),
      change_date: day(version.atMs),
      data_security_mode: 'SINGLE_USER',
      policy_id: null,
      _visible_at: version.atMs,
    });
  }
  return rows;
}
