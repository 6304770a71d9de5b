import { isObject, type JsonObject, numberOf, objectAt } from '../json-fields.js';

/** What `clusters/list-node-types` says of one node type, as far as a rule needs it. */
export interface NodeTypeFacts {
  nodeTypeId: string;
  cores: number;
  memoryMb: number;
  /** Instance-store disks (`node_instance_type.local_disks`); 0: the node has only what is attached to it. */
  localDisks: number;
  photonWorkerCapable: boolean;
  photonDriverCapable: boolean;
  /** Arm (AWS Graviton) rather than x86. */
  graviton: boolean;
  /** `support_ebs_volumes`: EBS volumes may be attached (AWS). */
  supportsEbsVolumes: boolean;
}

/** A compute policy: its name and rules by attribute path (`node_type_id`, `autoscale.max_workers`, …). */
export interface PolicyFacts {
  name: string;
  definition: Readonly<Record<string, PolicyRuleFacts>>;
}

/** One rule of a policy definition (Databricks' "Compute policy reference"). */
export interface PolicyRuleFacts {
  type: 'fixed' | 'forbidden' | 'allowlist' | 'blocklist' | 'regex' | 'range' | 'unlimited';
  value?: unknown;
  values?: readonly unknown[];
  pattern?: string;
  minValue?: number;
  maxValue?: number;
  defaultValue?: unknown;
  isOptional?: boolean;
}

/**
 * What the workspace a cluster is written to offers. A fact left null is not known: the rules that need
 * it judge nothing (a request is never refused for want of a fact).
 */
export interface DatabricksWorkspaceFacts {
  cloud: 'aws' | 'azure' | 'gcp';
  /** The node types the workspace can launch; null: not read. */
  nodeTypes: readonly NodeTypeFacts[] | null;
  /** Instance pools by id, with the node type each holds; null: not read. */
  instancePools?: ReadonlyMap<string, { nodeTypeId: string }> | null;
  /** Compute policies by id; null: not read. */
  policies?: ReadonlyMap<string, PolicyFacts> | null;
  /** The runtime versions (`clusters/spark-versions` keys) the workspace offers; null: not read. */
  sparkVersions?: readonly string[] | null;
  /** DBUs per hour of one node of a type on an engine, for policies' `dbus_per_hour`; null when not priced. */
  dbusPerHour?: ((nodeTypeId: string, photon: boolean) => number | null) | null;
}

/**
 * The node types a `clusters/list-node-types` answer offers for launching: not deprecated, not hidden,
 * and with no status saying the workspace cannot launch it ("NotAvailableInRegion", …).
 */
export function launchableNodeTypes(listed: readonly unknown[]): NodeTypeFacts[] {
  return listed.filter(isObject).flatMap((entry) => {
    const status = objectAt(entry, 'node_info').status;
    const unavailable = Array.isArray(status) && status.length > 0;
    if (entry.is_deprecated === true || entry.is_hidden === true || unavailable) return [];
    if (typeof entry.node_type_id !== 'string') return [];
    return [nodeTypeFactsOf(entry)];
  });
}

function nodeTypeFactsOf(entry: JsonObject): NodeTypeFacts {
  const instance = objectAt(entry, 'node_instance_type');
  const localDisks = numberOf(instance.local_disks);
  return {
    nodeTypeId: entry.node_type_id as string,
    cores: numberOf(entry.num_cores),
    memoryMb: numberOf(entry.memory_mb),
    localDisks: Number.isFinite(localDisks) ? localDisks : 0,
    photonWorkerCapable: entry.photon_worker_capable === true,
    photonDriverCapable: entry.photon_driver_capable === true,
    graviton: entry.is_graviton === true,
    supportsEbsVolumes: entry.support_ebs_volumes === true,
  };
}
