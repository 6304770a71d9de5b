import { type Violation, violationsOf } from '../rule.js';
import { type EmrAccountFacts, type EmrRequest, emrRules } from './emr-rules.js';

/** The violations of one EMR request. */
export function checkEmrRequest(request: EmrRequest, facts: EmrAccountFacts = {}): Violation[] {
  return violationsOf(emrRules, request, facts);
}
