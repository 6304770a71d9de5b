import type { CostComponent } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { PlatformBilling } from '../../../cost/platform-billing.js';
import { type Cloud, type ComputeType, type Plan, planSchema } from '../../../pricing/schema.js';

const computeTypes: Record<string, ComputeType> = {
  'jobs compute': 'jobs',
  'jobs compute light': 'jobs-light',
  'all-purpose compute': 'all-purpose',
};

/** The workspace's plan as the price catalog names it (`Premium` → `premium`); unknown plans price as Premium. */
export function planOf(planType: string | null | undefined): Plan {
  const parsed = planSchema.safeParse((planType ?? 'premium').toLowerCase());
  return parsed.success ? parsed.data : 'premium';
}

/** `Jobs Compute`, `Jobs Compute Light`, `All-Purpose Compute` → the catalog's compute types (default jobs). */
export function computeTypeOf(label: string | null | undefined): ComputeType {
  return computeTypes[(label ?? '').toLowerCase()] ?? 'jobs';
}

/** The cloud of a run (event-log hints say `AWS`/`Azure`) or its workspace; only AWS and Azure are priced. */
export function cloudOf(
  runCloud: string | null | undefined,
  workspaceCloud: string | null | undefined,
): Cloud {
  const cloud = (runCloud ?? workspaceCloud ?? 'aws').toLowerCase();
  if (cloud === 'aws' || cloud === 'azure') return cloud;
  throw new ValidationError(
    'RUN_CLOUD_UNSUPPORTED',
    `cannot price a cluster on cloud "${cloud}" (aws and azure are priced)`,
  );
}

/** What a Databricks cluster is billed under: the workspace's plan, the compute type, Photon or not. */
export interface DatabricksBillingTerms {
  plan: Plan;
  compute: ComputeType;
  photon: boolean;
}

/** The platform's name, as its workspaces and every component of its costs carry it. */
export const databricksPlatformName = 'databricks';

/** The fee Databricks bills: DBUs. */
export const dbuFee = 'dbu';

const billings = new Map<string, PlatformBilling>();

/**
 * Databricks bills DBUs per node-hour on top of the cloud's VMs and disks, by node type (Photon at its own
 * rate), at the plan's and compute type's price per DBU, on its own invoice; per second, no minimum.
 */
export function databricksBilling(terms: DatabricksBillingTerms): PlatformBilling {
  const key = `${terms.plan}:${terms.compute}:${terms.photon}`;
  let billing = billings.get(key);
  if (!billing) {
    billing = {
      platform: databricksPlatformName,
      nodeFees: [
        {
          fee: dbuFee,
          description: terms.photon ? 'DBUs (Photon)' : 'DBUs',
          unit: 'DBU',
          billedBy: 'platform',
          price: { list: 'dbu', plan: terms.plan, compute: terms.compute, photon: terms.photon },
        },
      ],
      minimumBilledHours: 0,
      unitCharges: [],
    };
    billings.set(key, billing);
  }
  return billing;
}

/** The DBUs in a cost's components and what they cost (as billed where the bill replaced the estimate). */
export function dbuCharge(components: readonly CostComponent[]): { dbus: number; usd: number } {
  let dbus = 0;
  let usd = 0;
  for (const component of components) {
    if (component.kind !== 'platform_fee' || component.fee !== dbuFee) continue;
    dbus += component.quantity;
    usd += component.usd;
  }
  return { dbus, usd };
}
