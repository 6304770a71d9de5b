import type { EmrClient } from '../api/emr-client.js';
import { type DiscoveredRun, type Grouping, type GroupingRule, groupRuns } from './grouping.js';

export interface DiscoverOptions {
  /** Clusters created after this time (epoch ms). */
  since: number;
  rule: GroupingRule;
  /** Only steps that ran Spark (`spark-submit` through command-runner, or a Spark main class). Default true. */
  sparkOnly?: boolean;
}

type Client = Pick<EmrClient, 'listClusters' | 'describeCluster' | 'listSteps'>;

/** Whether a step ran a Spark application. */
export function isSparkStep(step: {
  Config?: { Jar?: string | undefined; Args?: string[] | undefined } | undefined;
}): boolean {
  const args = step.Config?.Args ?? [];
  return (
    args.includes('spark-submit') ||
    args.some((arg) => arg.endsWith('/spark-submit')) ||
    /spark/i.test(step.Config?.Jar ?? '')
  );
}

/**
 * Every Spark step of the clusters created since a date (transient and long-running), and of the given
 * clusters however old (the long-running clusters imported workloads run on).
 */
export async function discoverRuns(
  client: Client,
  options: { since: number; sparkOnly?: boolean; alsoClusterIds?: readonly string[] },
): Promise<{ runs: DiscoveredRun[]; clusters: number }> {
  const runs: DiscoveredRun[] = [];
  const clusterIds: string[] = [];
  for await (const summary of client.listClusters({ createdAfter: new Date(options.since) }))
    clusterIds.push(summary.Id);
  for (const id of options.alsoClusterIds ?? []) if (!clusterIds.includes(id)) clusterIds.push(id);
  for (const clusterId of clusterIds) {
    const cluster = await client.describeCluster(clusterId);
    const tags = Object.fromEntries((cluster.Tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
    for await (const step of client.listSteps(clusterId)) {
      if ((options.sparkOnly ?? true) && !isSparkStep(step)) continue;
      runs.push({
        clusterId: cluster.Id,
        clusterName: cluster.Name,
        clusterState: cluster.Status.State,
        transient: cluster.AutoTerminate ?? false,
        tags,
        createdAt: cluster.Status.Timeline.createdAt,
        stepId: step.Id,
        stepName: step.Name,
        stepState: step.Status.State,
        startedAt: step.Status.Timeline.startedAt,
        endedAt: step.Status.Timeline.endedAt,
      });
    }
  }
  return { runs, clusters: clusterIds.length };
}

/**
 * Discovers the account's clusters (transient and long-running) and their steps since a date, and
 * groups the steps into workloads by the chosen rule.
 */
export async function discoverEmr(
  client: Client,
  options: DiscoverOptions,
): Promise<Grouping & { clusters: number }> {
  const { runs, clusters } = await discoverRuns(client, options);
  return { ...groupRuns(runs, options.rule), clusters };
}
