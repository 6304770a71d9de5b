import { emrGroupingSchema } from '@setpoint/api-contract/emr';
import { ValidationError } from '@setpoint/foundation/errors';
import type { z } from 'zod';

/**
 * How recurring EMR workloads become projects (Gradient's "app id"): by a cluster tag (default
 * `setpoint:project-id`), by the cluster's name with run-specific parts removed, by a regular
 * expression on the cluster name, or by step name (for long-running clusters shared by workloads).
 */
export const groupingRuleSchema = emrGroupingSchema;
export type GroupingRule = z.infer<typeof groupingRuleSchema>;

export const defaultProjectTagKey = 'setpoint:project-id';

/** `tag`, `tag:<key>`, `cluster-name`, `name-pattern:<regex>`, `step-name` (the CLI's and the API's `group_by`). */
export function parseGroupingRule(text: string, field = 'group_by'): GroupingRule {
  const [kind, ...rest] = text.split(':');
  const argument = rest.join(':');
  const candidate =
    kind === 'tag'
      ? { kind, key: argument || defaultProjectTagKey }
      : kind === 'name-pattern'
        ? { kind, pattern: argument }
        : { kind };
  const parsed = groupingRuleSchema.safeParse(candidate);
  if (!parsed.success || (kind === 'name-pattern' && argument === ''))
    throw new ValidationError(
      'INVALID_GROUPING',
      `${field} expects tag[:KEY], cluster-name, name-pattern:REGEX or step-name, got "${text}"`,
    );
  return parsed.data;
}

/** One step of one cluster, as discovery sees it. */
export interface DiscoveredRun {
  clusterId: string;
  clusterName: string;
  clusterState: string;
  /** Auto-terminating (launched for its steps) rather than long-running. */
  transient: boolean;
  tags: Record<string, string>;
  createdAt: number | null;
  stepId: string;
  stepName: string;
  stepState: string;
  startedAt: number | null;
  endedAt: number | null;
}

export interface Workload {
  key: string;
  runs: DiscoveredRun[];
  clusterIds: string[];
  /** Seen at least twice: worth a project. */
  recurring: boolean;
}

export interface Grouping {
  workloads: Workload[];
  ungrouped: { run: DiscoveredRun; reason: string }[];
}

const runSpecific: RegExp[] = [
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, // UUIDs
  /(?:manual|scheduled|backfill|dataset_triggered)__\S+/g, // Airflow run ids
  /\d{4}-?\d{2}-?\d{2}(?:[T_ ]?\d{2}[:-]?\d{2}(?:[:-]?\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, // dates and times
  /\b\d{5,}\b/g, // epoch stamps and long counters
];

/** A name without its run-specific parts: `nightly-orders-2026-03-02T02:00` → `nightly-orders`. */
export function normalizeRunName(name: string): string {
  let key = name;
  for (const pattern of runSpecific) key = key.replace(pattern, '');
  key = key
    .replace(/[-_. :/]{2,}/g, (separators) => separators[0] ?? '')
    .replace(/^[-_. :/]+|[-_. :/]+$/g, '');
  return key === '' ? name : key;
}

/** The workload a run belongs to by the rule, or why it belongs to none. */
export function keyOf(run: DiscoveredRun, rule: GroupingRule): { key: string } | { reason: string } {
  switch (rule.kind) {
    case 'tag': {
      const value = run.tags[rule.key];
      return value ? { key: value } : { reason: `cluster ${run.clusterId} has no tag ${rule.key}` };
    }
    case 'cluster-name':
      return { key: normalizeRunName(run.clusterName) };
    case 'name-pattern': {
      const match = new RegExp(rule.pattern).exec(run.clusterName);
      if (!match) return { reason: `cluster name "${run.clusterName}" does not match /${rule.pattern}/` };
      return { key: match.groups?.project ?? match[1] ?? match[0] };
    }
    case 'step-name':
      return { key: normalizeRunName(run.stepName) };
  }
}

/** Groups runs into workloads by the rule; each workload's runs oldest first. */
export function groupRuns(runs: readonly DiscoveredRun[], rule: GroupingRule): Grouping {
  const byKey = new Map<string, DiscoveredRun[]>();
  const ungrouped: Grouping['ungrouped'] = [];
  for (const run of runs) {
    const result = keyOf(run, rule);
    if ('reason' in result) {
      ungrouped.push({ run, reason: result.reason });
      continue;
    }
    const list = byKey.get(result.key) ?? [];
    list.push(run);
    byKey.set(result.key, list);
  }
  const workloads = [...byKey.entries()]
    .map(([key, list]) => {
      const ordered = [...list].sort(
        (a, b) => (a.startedAt ?? a.createdAt ?? 0) - (b.startedAt ?? b.createdAt ?? 0),
      );
      return {
        key,
        runs: ordered,
        clusterIds: [...new Set(ordered.map((run) => run.clusterId))],
        recurring: ordered.length >= 2,
      };
    })
    .sort((a, b) => b.runs.length - a.runs.length || a.key.localeCompare(b.key));
  return { workloads, ungrouped };
}
