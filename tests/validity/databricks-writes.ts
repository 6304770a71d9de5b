import { defaultProjectSettings, type ProjectSettings } from '@setpoint/api-contract';
import { nodeTypesJson } from '@setpoint/databricks-emulator/server/clusters-routes';
import { shippedJobSettings, type WorkspaceCloud } from '@setpoint/databricks-emulator/server/shipped-jobs';
import { launchableNodeTypes, type NodeTypeFacts } from '@setpoint/validity/databricks';
import { createCostModel } from 'setpoint/cost/cost-model';
import { buildCandidateSpace } from 'setpoint/platforms/databricks/cluster-shape/candidates';
import { shapeOfCluster } from 'setpoint/platforms/databricks/cluster-shape/cluster-shape';
import { parseNewCluster } from 'setpoint/platforms/databricks/cluster-shape/parse-configuration';
import { clusterOfShape } from 'setpoint/platforms/databricks/cluster-shape/validity-filters';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { createPriceCatalog } from 'setpoint/pricing/price-catalog';

/**
 * What Setpoint writes, enumerated: every candidate the Databricks candidate space keeps for each shipped
 * Job Bank cluster (AWS and Azure, under settings that open every dimension), written into the job as
 * apply writes it. (The EMR launch configurations: `emr-contract.test.ts`.)
 */

const catalog = createPriceCatalog([shippedCatalog]);
const costModel = createCostModel(catalog);

const openSettings: ProjectSettings[] = [
  { ...defaultProjectSettings(), photonAllowed: true, spotPolicy: 'spot-allowed', maintainScalingType: true },
  { ...defaultProjectSettings(), maintainScalingType: false, forceOnDemandDriver: true },
];

export interface WrittenCluster {
  id: string;
  cloud: WorkspaceCloud;
  cluster: Record<string, unknown>;
  /** The cluster the shipped job runs on now, which the candidate replaces. */
  running: Record<string, unknown>;
  /** The job's settings with this cluster in place. */
  job: Record<string, unknown>;
}

/** The node types a workspace on `cloud` lists, as the reader returns them. */
export function workspaceNodeTypes(cloud: WorkspaceCloud): ReadonlyMap<string, NodeTypeFacts> {
  return new Map(
    launchableNodeTypes(nodeTypesJson(catalogNodeSpecs, cloud)).map((facts) => [facts.nodeTypeId, facts]),
  );
}

type Keyed = Record<string, unknown>;

/** The job with `cluster` in place of the cluster at `slot` (a job cluster or a task's own). */
function withCluster(
  job: Keyed,
  slot: { list: 'job_clusters' | 'tasks'; index: number },
  cluster: Keyed,
): Keyed {
  const copy = structuredClone(job);
  const entries = copy[slot.list] as Keyed[];
  (entries[slot.index] as Keyed).new_cluster = cluster;
  return copy;
}

/** Every `every`-th kept candidate of every shipped cluster, written into its job. */
export function databricksWrites(every = 7): WrittenCluster[] {
  const written: WrittenCluster[] = [];
  for (const cloud of ['aws', 'azure'] as const) {
    const nodeTypes = workspaceNodeTypes(cloud);
    for (const job of shippedJobSettings(cloud) as Keyed[]) {
      const slots = (['job_clusters', 'tasks'] as const).flatMap((list) =>
        ((job[list] as Keyed[] | undefined) ?? []).flatMap((entry, index) =>
          entry.new_cluster ? [{ list, index, base: entry.new_cluster as Keyed }] : [],
        ),
      );
      for (const slot of slots) {
        const base = parseNewCluster(slot.base);
        const current = shapeOfCluster(base, cloud);
        openSettings.forEach((settings, settingsIndex) => {
          const space = buildCandidateSpace(
            catalog,
            shippedCatalog.instanceTypes,
            {
              cloud,
              region: cloud === 'aws' ? 'us-west-2' : 'eastus',
              plan: 'premium',
              settings,
              current,
              observed: [current],
              launchableNodeTypes: nodeTypes,
              baseCluster: base,
              sparkVersion: base?.spark_version ?? null,
            },
            costModel,
          );
          space.entries
            .filter((entry) => entry.allowed)
            .forEach((entry, index) => {
              if (index % every !== 0) return;
              const cluster = clusterOfShape(entry.shape, base) as Keyed;
              written.push({
                id: `${cloud}/${String(job.name)}/${slot.list}[${slot.index}]/${settingsIndex}/${entry.candidate.id}`,
                cloud,
                cluster,
                running: slot.base,
                job: withCluster(job, slot, cluster),
              });
            });
        });
      }
    }
  }
  return written;
}
