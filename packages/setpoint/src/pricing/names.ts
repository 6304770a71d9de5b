import type { Cloud } from './schema.js';

/**
 * One spelling per instance type: AWS names as-is; Azure names with the `Standard_` prefix the Databricks
 * API uses (`DS3 v2`, `DS3_v2` → `Standard_DS3_v2`). A pricing-calculator ` (Photon)` suffix is dropped.
 */
export function normalizeInstanceType(cloud: Cloud, name: string): string {
  const trimmed = name.trim().replace(/\s*\(photon\)$/i, '');
  if (cloud === 'aws') return trimmed.toLowerCase();
  const underscored = trimmed.replace(/\s+/g, '_');
  return /^standard_/i.test(underscored)
    ? `Standard_${underscored.slice('standard_'.length)}`
    : `Standard_${underscored}`;
}

/** Case-insensitive lookup key from parts. */
export function lookupKey(...parts: string[]): string {
  return parts.map((part) => part.toLowerCase()).join('|');
}

/** Guesses the cloud from a node type name: Azure sizes carry `Standard_` or a `_v<n>` suffix. */
export function cloudOfNodeType(name: string): Cloud {
  return /^standard_|_v\d+$/i.test(
    name
      .trim()
      .replace(/\s*\(photon\)$/i, '')
      .replace(/\s+/g, '_'),
  )
    ? 'azure'
    : 'aws';
}
