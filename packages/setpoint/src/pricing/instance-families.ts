import type { Cloud, InstanceTypeEntry } from './schema.js';

/**
 * The classes of a cloud whose families stand in for each other for a Spark worker: general purpose,
 * compute optimized and memory optimized (AWS m, c, r; Azure D, F, E).
 */
const interchangeableClasses: Record<Cloud, readonly string[]> = {
  aws: ['m', 'c', 'r'],
  azure: ['D', 'E', 'F'],
};

/**
 * The families of an instance type's generation and variant in the general-purpose, compute and memory
 * classes (`m5d` → `m5d`, `c5d`, `r5d`; Azure `Edsv5` → `Ddsv5`, `Edsv5`, `Fdsv5`), or its family alone when
 * it is in none of them (`i3`). The catalog writes a family as the cloud names it, its class letter first.
 */
export function siblingFamilies(entry: Pick<InstanceTypeEntry, 'cloud' | 'family'>): string[] {
  const classes = interchangeableClasses[entry.cloud];
  const letter = entry.family.charAt(0);
  const rest = entry.family.slice(1);
  // AWS names its generation right after the class letter (`m5`); `mac1` or `m` alone is no sibling
  const generationFollows = entry.cloud === 'aws' ? /^\d/.test(rest) : true;
  if (!classes.includes(letter) || !generationFollows) return [entry.family];
  return classes.map((sibling) => `${sibling}${rest}`);
}
