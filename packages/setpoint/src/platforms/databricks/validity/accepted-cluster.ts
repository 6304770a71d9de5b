import { ValidationError } from '@setpoint/foundation/errors';
import {
  checkClusterSpec,
  type DatabricksWorkspaceFacts,
  describeViolation,
  type Violation,
} from '@setpoint/validity/databricks';
import type { NewClusterSpec } from '../api/schema.js';

/** A problem as the platform states it: the same rule and sentence is the same problem, wherever it sits. */
export const problemOf = (violation: Violation) => `${violation.rule}|${violation.message}`;

/**
 * Refuses, before anything is written (jobs/update, a Terraform or bundle export), a cluster Databricks
 * would refuse: the error names each broken rule and field. A rule broken only when the cluster launches
 * is refused too (the write would be accepted and the next run fail to start), unless the cluster the job
 * runs on now (`running`) already breaks it the same way: it launches, so the workspace evidently takes it.
 */
export function assertClusterAccepted(
  cluster: NewClusterSpec,
  facts: DatabricksWorkspaceFacts,
  what: string,
  running: NewClusterSpec | null = null,
): void {
  const runs = new Set(
    running
      ? checkClusterSpec(running, facts)
          .filter((violation) => violation.refusedAt === 'launch')
          .map(problemOf)
      : [],
  );
  const refused = checkClusterSpec(cluster, facts).filter((violation) => !runs.has(problemOf(violation)));
  if (refused.length === 0) return;
  throw new ValidationError(
    'CLUSTER_INVALID',
    `${what} is not written: Databricks would refuse it (${refused
      .map((violation) => `${describeViolation(violation)} [${violation.field}]`)
      .join('; ')})`,
  );
}
