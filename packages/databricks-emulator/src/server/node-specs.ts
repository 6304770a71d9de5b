import type { NodeType } from '../physics/node-types.js';

/** Cores, memory and local disk that list-node-types reports for a node type. */
export interface NodeSpec {
  cores: number;
  memoryMb: number;
  localNvmeGb: number | undefined;
}

/**
 * Instance specs the host knows better than the simulator's own table: Setpoint passes its price
 * catalog's, so the API agrees with what Setpoint prices. `cloud` is lower-case (`aws`, `azure`).
 */
export type NodeSpecSource = (cloud: string, nodeTypeId: string) => NodeSpec | undefined;

export function nodeSpec(type: NodeType, source: NodeSpecSource | undefined): NodeSpec {
  return (
    source?.(type.cloud.toLowerCase(), type.nodeTypeId) ?? {
      cores: type.cores,
      memoryMb: type.memoryMb,
      localNvmeGb: undefined,
    }
  );
}
