import { ValidationError } from '@setpoint/foundation/errors';
import {
  checkEmrRequest,
  describeViolation,
  type EmrAccountFacts,
  type EmrRequest,
} from '@setpoint/validity/emr';

/**
 * Refuses, before anything is sent or exported, EMR requests the SDK or the service would refuse
 * (`@setpoint/validity/emr`: the service model's constraints and the API reference's rules). The error
 * names each broken rule and field; nothing is written.
 */
export function assertEmrAccepted(
  requests: readonly EmrRequest[],
  facts: EmrAccountFacts,
  what: string,
): void {
  const refused = requests.flatMap((request) =>
    checkEmrRequest(request, facts).map(
      (violation) => `${request.operation}: ${describeViolation(violation)} [${violation.field}]`,
    ),
  );
  if (refused.length === 0) return;
  throw new ValidationError(
    'EMR_REQUEST_INVALID',
    `${what} is not sent: EMR would refuse it (${refused.join('; ')})`,
  );
}

/** The RunJobFlow that launches a configuration Setpoint recommends (`Instances`, managed scaling) under a name. */
export function launchRequestOf(name: string, configuration: Record<string, unknown>): EmrRequest {
  return { operation: 'RunJobFlow', input: { Name: name, ...configuration } };
}
