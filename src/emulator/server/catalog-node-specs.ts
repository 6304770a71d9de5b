import { shippedCatalog } from '../../pricing/catalog/shipped-catalog.js';
import type { NodeType } from '../physics/node-types.js';

export interface NodeSpec {
  cores: number;
  memoryMb: number;
  localNvmeGb: number | undefined;
}

const catalogEntries = new Map<string, (typeof shippedCatalog.instanceTypes)[number]>(
  shippedCatalog.instanceTypes.map((entry) => [`${entry.cloud}:${entry.instanceType}`, entry]),
);

/**
 * What list-node-types reports for cores, memory and local disk: the price catalog's instance specs when
 * it knows the type (so the API agrees with what Setpoint prices), else the simulator's own table.
 */
export function nodeSpec(type: NodeType): NodeSpec {
  const entry = catalogEntries.get(`${type.cloud.toLowerCase()}:${type.nodeTypeId}`);
  if (!entry) return { cores: type.cores, memoryMb: type.memoryMb, localNvmeGb: undefined };
  return { cores: entry.vcpus, memoryMb: Math.round(entry.memoryGib * 1024), localNvmeGb: entry.localNvmeGb };
}
