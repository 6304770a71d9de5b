import { ValidationError } from '@setpoint/foundation/errors';
import {
  type ClusterSpecJson,
  checkClusterSpec,
  type DatabricksWorkspaceFacts,
  describeViolation,
  type Violation,
} from '@setpoint/validity/databricks';
import type { NewClusterSpec } from '../api/schema.js';

/** A problem as the platform states it: the same rule and sentence is the same problem, wherever it sits. */
export const problemOf = (violation: Violation) => `${violation.rule}|${violation.message}`;

/** "autoscale-bounds: … [autoscale.max_workers]": the rule, Databricks' sentence and the field. */
export const describeProblem = (violation: Violation) =>
  `${describeViolation(violation)} [${violation.field}]`;

/**
 * The problems for which Databricks would refuse writing `cluster` over a job whose cluster is now
 * `running`: every rule broken on the request, and every rule broken when the cluster launches unless the
 * running cluster already breaks it the same way (it launches, so the workspace evidently takes it).
 */
export function refusedProblems(
  cluster: ClusterSpecJson,
  facts: DatabricksWorkspaceFacts,
  running: ClusterSpecJson | null = null,
): Violation[] {
  const runs = new Set(
    running
      ? checkClusterSpec(running, facts)
          .filter((violation) => violation.refusedAt === 'launch')
          .map(problemOf)
      : [],
  );
  return checkClusterSpec(cluster, facts).filter((violation) => !runs.has(problemOf(violation)));
}

/**
 * Refuses, before anything is written (jobs/update, a Terraform or bundle export), a cluster Databricks
 * would refuse (`refusedProblems`): the error names each broken rule and field.
 */
export function assertClusterAccepted(
  cluster: NewClusterSpec,
  facts: DatabricksWorkspaceFacts,
  what: string,
  running: NewClusterSpec | null = null,
): void {
  const refused = refusedProblems(cluster, facts, running);
  if (refused.length === 0) return;
  throw new ValidationError(
    'CLUSTER_INVALID',
    `${what} is not written: Databricks would refuse it (${refused.map(describeProblem).join('; ')})`,
  );
}
