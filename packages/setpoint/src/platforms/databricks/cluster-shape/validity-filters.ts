import {
  checkClusterSpec,
  type DatabricksWorkspaceFacts,
  databricksClusterRules,
  type Violation,
} from '@setpoint/validity/databricks';
import type { CandidateFilter } from '../../../service/recommender/candidate-filters.js';
import type { NewClusterSpec } from '../api/schema.js';
import { withManagedFields } from '../jobs/apply-cluster-change.js';
import { managedFieldsOf } from '../jobs/managed-fields.js';
import { problemOf } from '../validity/accepted-cluster.js';
import { type DatabricksClusterShape, describeShape, shapeId } from './cluster-shape.js';
import { jobFragmentOf } from './job-fragment.js';

/** The cluster a shape becomes once written into the job's cluster (`base`), or on its own without one. */
export function clusterOfShape(shape: DatabricksClusterShape, base: NewClusterSpec | null): NewClusterSpec {
  const fragment = jobFragmentOf(shape, base);
  if (!base) return fragment as NewClusterSpec;
  return withManagedFields(base, managedFieldsOf(fragment), { maintainScalingType: false });
}

interface ValidityCandidate {
  choice: DatabricksClusterShape;
  /** Past configurations outside the project's bounds are kept whatever the filters say. */
  allowed: boolean;
}

export interface ValidityContext {
  facts: DatabricksWorkspaceFacts;
  /** The job's cluster as reported: candidates are written into it, so it is what the platform checks. */
  base: NewClusterSpec | null;
  /** The configuration the job runs on: never removed (a recommendation can always keep it). */
  current: DatabricksClusterShape;
}

/**
 * Databricks' validity rules as candidate filters: one per rule (a compute policy's, one per rule of the
 * policy, "policy node_type_id allowlist"), each leaving out the candidates whose cluster, once written
 * into the job, would break it, with the rule's own message. A problem the job's cluster already has (its
 * runtime breaks the policy; its node type is no longer listed, though it runs) is not held against the
 * candidates that keep it: every one of them would carry it, and a write that Databricks would refuse for
 * it is refused with that reason instead (`assertClusterAccepted`).
 */
export function validityFilters(context: ValidityContext): CandidateFilter<ValidityCandidate>[] {
  const currentId = shapeId(context.current);
  const running = context.base ?? clusterOfShape(context.current, null);
  const inherited = new Set(checkClusterSpec(running, context.facts).map(problemOf));
  const violations = new WeakMap<DatabricksClusterShape, Violation[]>();
  const violationsOf = (choice: DatabricksClusterShape): Violation[] => {
    let found = violations.get(choice);
    if (!found) {
      found = checkClusterSpec(clusterOfShape(choice, context.base), context.facts).filter(
        (violation) => !inherited.has(problemOf(violation)),
      );
      violations.set(choice, found);
    }
    return found;
  };
  const filter = (
    name: string,
    matches: (violation: Violation) => boolean,
  ): CandidateFilter<ValidityCandidate> => ({
    name,
    reject({ choice, allowed }) {
      if (!allowed || shapeId(choice) === currentId) return null;
      const violation = violationsOf(choice).find(matches);
      return violation ? `${describeShape(choice)}: ${violation.message}` : null;
    },
  });
  const policyId = context.base?.policy_id;
  const policy = typeof policyId === 'string' ? context.facts.policies?.get(policyId) : undefined;
  return databricksClusterRules.flatMap((rule) => {
    if (rule.name !== 'policy' || !policy)
      return [filter(rule.name, (violation) => violation.rule === rule.name)];
    return [
      ...Object.entries(policy.definition).map(([path, policyRule]) =>
        filter(
          `policy ${path} ${policyRule.type}`,
          (violation) => violation.rule === 'policy' && violation.field === path,
        ),
      ),
      filter('policy', (violation) => violation.rule === 'policy'),
    ];
  });
}
