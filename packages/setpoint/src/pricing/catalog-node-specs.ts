import { shippedCatalog } from './catalog/shipped-catalog.js';

const instanceTypes = new Map(
  shippedCatalog.instanceTypes.map((entry) => [`${entry.cloud}:${entry.instanceType}`, entry]),
);

/**
 * The shipped catalog's instance specs as an emulated workspace's list-node-types reports them, so an
 * emulator started by Setpoint (demo, `setpoint emulator`, tests) agrees with what Setpoint prices.
 */
export function catalogNodeSpecs(
  cloud: string,
  nodeTypeId: string,
): { cores: number; memoryMb: number; localNvmeGb: number | undefined } | undefined {
  const entry = instanceTypes.get(`${cloud}:${nodeTypeId}`);
  if (!entry) return undefined;
  return { cores: entry.vcpus, memoryMb: Math.round(entry.memoryGib * 1024), localNvmeGb: entry.localNvmeGb };
}
