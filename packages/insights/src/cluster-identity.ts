/** The cluster facts that make two runs' clusters the same configuration. */
export interface ClusterFactsLike {
  nodeTypeId?: string | null;
  driverNodeTypeId?: string | null;
  workers?: number | null;
  autoscale?: { minWorkers: number; maxWorkers: number } | null;
  photon?: boolean | null;
  availability?: string | null;
}

/** Equal keys mean the same node types, size, engine and market. */
export function clusterIdentity(facts: ClusterFactsLike | null | undefined): string | null {
  if (!facts) return null;
  return JSON.stringify([
    facts.nodeTypeId ?? null,
    facts.driverNodeTypeId ?? null,
    facts.workers ?? null,
    facts.autoscale?.minWorkers ?? null,
    facts.autoscale?.maxWorkers ?? null,
    facts.photon ?? null,
    facts.availability ?? null,
  ]);
}
