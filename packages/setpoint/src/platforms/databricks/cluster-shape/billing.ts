import { ValidationError } from '@setpoint/foundation/errors';
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
