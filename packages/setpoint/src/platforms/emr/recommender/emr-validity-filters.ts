import { checkEmrRequest, type EmrAccountFacts, emrRules, type Violation } from '@setpoint/validity/emr';
import type { CandidateFilter } from '../../../service/recommender/candidate-filters.js';
import { launchRequestOf } from '../validity/accepted-request.js';
import { type EmrChoice, emrChoiceId } from './emr-choice.js';
import { emrConfigurationOf } from './emr-configuration.js';

const problemOf = (violation: Violation) => `${violation.rule}|${violation.message}`;

/**
 * EMR's validity contract as candidate filters, one per rule: a choice whose launch EMR would refuse (an
 * instance type the release does not support in the region, volumes or scaling limits out of range, …) is
 * left out with the rule's own message, so the explanation names the rule. A problem the current cluster
 * already has is not held against the candidates that keep it: that cluster runs.
 */
export function emrValidityFilters(context: {
  facts: EmrAccountFacts;
  current: EmrChoice;
}): CandidateFilter<{ choice: EmrChoice; allowed: boolean }>[] {
  const currentId = emrChoiceId(context.current);
  const check = (choice: EmrChoice) =>
    checkEmrRequest(launchRequestOf('setpoint-candidate', emrConfigurationOf(choice)), context.facts);
  const inherited = new Set(check(context.current).map(problemOf));
  const found = new WeakMap<EmrChoice, Violation[]>();
  const violationsOf = (choice: EmrChoice) => {
    let violations = found.get(choice);
    if (!violations) {
      violations = check(choice).filter((violation) => !inherited.has(problemOf(violation)));
      found.set(choice, violations);
    }
    return violations;
  };
  return emrRules.map((rule) => ({
    name: rule.name,
    reject({ choice, allowed }) {
      if (!allowed || emrChoiceId(choice) === currentId) return null;
      const violation = violationsOf(choice).find((candidate) => candidate.rule === rule.name);
      return violation
        ? `${choice.core + choice.task} × ${choice.workerType} (${choice.core} core, ${choice.task} task): ${violation.message}`
        : null;
    },
  }));
}
