import { isAppError } from '@setpoint/foundation/errors';

/**
 * An apply or revert that failed with Setpoint's own refusal (paused, changed outside, not linked, superseded,
 * not ready): it will not change on retry, so its job is parked, visibly. The platform's errors and throttling
 * (`upstream`, `rate_limited`) and anything unexpected are retried.
 */
export function isRefusal(error: unknown): boolean {
  return isAppError(error) && error.kind !== 'upstream' && error.kind !== 'rate_limited';
}
