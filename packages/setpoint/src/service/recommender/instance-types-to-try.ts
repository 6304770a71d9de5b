import type { ProjectSettings } from '@setpoint/api-contract';
import { siblingFamilies } from '../../pricing/instance-families.js';
import type { Cloud, InstanceTypeEntry } from '../../pricing/schema.js';

/** Worker sizes considered when the project lists no instance types: 4–32 vCPUs (Spark executor sweet spot). */
const vcpuRange = { min: 4, max: 32 };

/**
 * The instance types a project's candidates may use for a node (the workers; Databricks' driver too), from the
 * catalog's typed facts: the types the project lists; else the families it lists, in the size range; else the
 * current type's family and its general-purpose, compute and memory siblings of one generation
 * (`siblingFamilies`) on the same processor architecture, in the size range. The current type is always in range; unknown to the catalog, it leaves
 * nothing to try but listed types or families.
 */
export function instanceTypesToTry(
  catalogTypes: readonly InstanceTypeEntry[],
  cloud: Cloud,
  settings: Pick<ProjectSettings, 'allowedInstanceTypes' | 'allowedInstanceFamilies'>,
  currentType: string,
): InstanceTypeEntry[] {
  const ofCloud = catalogTypes.filter((entry) => entry.cloud === cloud);
  if (settings.allowedInstanceTypes.length > 0)
    return ofCloud.filter((entry) => settings.allowedInstanceTypes.includes(entry.instanceType));
  const inSize = (entry: InstanceTypeEntry) =>
    (entry.vcpus >= vcpuRange.min && entry.vcpus <= vcpuRange.max) || entry.instanceType === currentType;
  if (settings.allowedInstanceFamilies.length > 0)
    return ofCloud.filter(
      (entry) => settings.allowedInstanceFamilies.includes(entry.family) && inSize(entry),
    );
  const current = ofCloud.find((entry) => entry.instanceType === currentType);
  if (!current) return [];
  const families = siblingFamilies(current);
  return ofCloud.filter(
    (entry) => families.includes(entry.family) && entry.arch === current.arch && inSize(entry),
  );
}
