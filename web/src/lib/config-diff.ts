export interface DiffLine {
  path: string;
  current: string | null;
  recommended: string | null;
  changed: boolean;
}

/** Leaves of a JSON object as dotted paths ("autoscale.min_workers"); arrays are compared whole. */
export function flatten(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      for (const [path, leaf] of flatten(child, prefix ? `${prefix}.${key}` : key)) out.set(path, leaf);
    }
  } else if (prefix) {
    out.set(prefix, JSON.stringify(value));
  }
  return out;
}

/** Line-by-line comparison of two cluster specs, changed lines first, then alphabetical. */
export function diffConfigs(current: unknown, recommended: unknown): DiffLine[] {
  const a = flatten(current);
  const b = flatten(recommended);
  const paths = [...new Set([...a.keys(), ...b.keys()])];
  return paths
    .map((path) => {
      const before = a.get(path) ?? null;
      const after = b.get(path) ?? null;
      return { path, current: before, recommended: after, changed: before !== after };
    })
    .sort((x, y) => Number(y.changed) - Number(x.changed) || x.path.localeCompare(y.path));
}
