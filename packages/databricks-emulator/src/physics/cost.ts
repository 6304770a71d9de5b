import type { NodeType } from './node-types.js';

/** Jobs Compute list price per DBU used by the simulator's ground-truth bill. */
export const jobsComputeUsdPerDbu = 0.15;
export const photonDbuMultiplier = 2;
const ebsUsdPerGbMonth = 0.1;
const hoursPerMonth = 730;

export interface NodeUsage {
  node: NodeType;
  role: 'driver' | 'worker';
  spot: boolean;
  fromMs: number;
  toMs: number;
  /** A worker's cloud instance (the driver's is the cluster's identity). */
  instanceId?: string;
}

export interface SimulatedCost {
  vmUsd: number;
  dbuUsd: number;
  ebsUsd: number;
  totalUsd: number;
  dbus: number;
  nodeHours: number;
  spotNodeHours: number;
}

export function computeCost(
  usage: readonly NodeUsage[],
  options: { photon: boolean; ebsGbPerNode: number },
): SimulatedCost {
  let vmUsd = 0;
  let dbus = 0;
  let nodeHours = 0;
  let spotNodeHours = 0;
  for (const entry of usage) {
    const hours = Math.max(0, entry.toMs - entry.fromMs) / 3_600_000;
    const node = entry.node;
    const vmRate = node.onDemandUsdPerCoreHour * node.cores * (entry.spot ? node.spotPriceFraction : 1);
    vmUsd += hours * vmRate;
    dbus += hours * node.dbuPerCoreHour * node.cores * (options.photon ? photonDbuMultiplier : 1);
    nodeHours += hours;
    if (entry.spot) spotNodeHours += hours;
  }
  const ebsUsd = (nodeHours * options.ebsGbPerNode * ebsUsdPerGbMonth) / hoursPerMonth;
  const dbuUsd = dbus * jobsComputeUsdPerDbu;
  return { vmUsd, dbuUsd, ebsUsd, totalUsd: vmUsd + dbuUsd + ebsUsd, dbus, nodeHours, spotNodeHours };
}
