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

const sizing = ['num_workers', 'autoscale'] as const;

/**
 * Line-by-line comparison of the job's cluster with a recommended `new_cluster` fragment, changed
 * lines first. Applying merges the fragment into the cluster, so a setting the fragment leaves out
 * keeps its value; only the sizing is exclusive (a fixed size replaces autoscaling and vice versa).
 */
export function diffConfigs(current: Record<string, unknown>, fragment: Record<string, unknown>): DiffLine[] {
  const a = flatten(current);
  const b = flatten(fragment);
  const replacedSizing = sizing.filter(
    (key) => !(key in fragment) && sizing.some((other) => other in fragment),
  );
  const removed = (path: string) => replacedSizing.some((key) => path === key || path.startsWith(`${key}.`));
  const paths = [...new Set([...a.keys(), ...b.keys()])];
  return paths
    .map((path) => {
      const before = a.get(path) ?? null;
      const after = b.has(path) ? b.get(path)! : removed(path) ? null : before;
      return { path, current: before, recommended: after, changed: before !== after };
    })
    .sort((x, y) => Number(y.changed) - Number(x.changed) || x.path.localeCompare(y.path));
}

/** Top-level keys of a Databricks `new_cluster` a person sets; the rest of a cluster's state is runtime detail. */
const specKeys = new Set([
  'spark_version',
  'node_type_id',
  'driver_node_type_id',
  'num_workers',
  'autoscale',
  'runtime_engine',
  'aws_attributes',
  'azure_attributes',
  'gcp_attributes',
  'spark_conf',
  'spark_env_vars',
  'enable_elastic_disk',
  'instance_pool_id',
  'driver_instance_pool_id',
  'policy_id',
  'data_security_mode',
  'cluster_log_conf',
  'custom_tags',
]);

/** The lines a reviewer needs: every change, plus the unchanged settings of the cluster spec. */
export function reviewLines(lines: DiffLine[]): DiffLine[] {
  return lines.filter((line) => line.changed || specKeys.has(line.path.split('.')[0] ?? ''));
}
