import {
  type DatabricksWorkspaceFacts,
  launchableNodeTypes,
  type NodeTypeFacts,
  type PolicyFacts,
} from '@setpoint/validity/databricks';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { Cloud } from '../../../pricing/schema.js';
import type { ClusterPolicy } from '../api/schema.js';

/**
 * What a workspace offers, as the validity rules read it. What Setpoint has not read stays null, so the
 * rules that need it judge nothing (nothing is refused for want of a fact).
 */
export function databricksWorkspaceFacts(known: {
  cloud: Cloud;
  /** `clusters/list-node-types`, as read (`launchableNodeTypes`); null: not read. */
  nodeTypes?: ReadonlyMap<string, NodeTypeFacts> | null;
  /** The compute policy the job's cluster names, when read. */
  policy?: ClusterPolicy | null;
  /** Prices DBUs for a policy's `dbus_per_hour`. */
  catalog?: Pick<PriceCatalog, 'dbuRate'>;
}): DatabricksWorkspaceFacts {
  const { catalog, cloud, policy } = known;
  return {
    cloud,
    nodeTypes: known.nodeTypes ? [...known.nodeTypes.values()] : null,
    policies: policy
      ? new Map<string, PolicyFacts>([
          [policy.policy_id, { name: policy.name, definition: policy.definition }],
        ])
      : null,
    dbusPerHour: catalog
      ? (nodeTypeId, photon) => {
          try {
            return catalog.dbuRate(cloud, nodeTypeId, photon).dbuPerHour;
          } catch {
            return null;
          }
        }
      : null,
  };
}

/**
 * The facts of a workspace from what it answers: its `clusters/list-node-types` listing (null or empty: not
 * read) and the compute policy the cluster names.
 */
export function listedWorkspaceFacts(known: {
  cloud: Cloud;
  listed: readonly unknown[] | null;
  policy?: ClusterPolicy | null;
}): DatabricksWorkspaceFacts {
  const { cloud, listed, policy } = known;
  const nodeTypes = listed?.length
    ? new Map<string, NodeTypeFacts>(launchableNodeTypes(listed).map((facts) => [facts.nodeTypeId, facts]))
    : null;
  return databricksWorkspaceFacts({ cloud, nodeTypes, policy });
}
