import { AppError } from '@setpoint/foundation/errors';
import { cachedOfferedTypes } from '../../../service/recommender/offered-types-cache.js';
import type { EmrClient } from '../api/emr-client.js';

/**
 * Only throttling and EMR's own server faults are worth retrying a recommendation for. Any other failure
 * (an action a test double or a partition does not implement, a proxy's 503) cannot say.
 */
const retriedErrors = new Set(['ThrottlingException', 'InternalServerError', 'InternalServerException']);

/** Reads the instance types an EMR release supports in an account's region; null when it cannot say. */
export type SupportedInstanceTypeReader = (
  accountId: string,
  releaseLabel: string,
) => Promise<ReadonlySet<string> | null>;

/**
 * The instance types each account's region supports for an EMR release (`ListSupportedInstanceTypes`),
 * read at most once an hour per account and release. Throttling and EMR's server faults are thrown (the
 * recommendation retries); a refusal (no `elasticmapreduce:ListSupportedInstanceTypes`), an unknown
 * release, an unimplemented action or an empty list cannot say, and nothing is left out.
 */
export function cachedSupportedInstanceTypes(
  clientOf: (accountId: string) => Promise<Pick<EmrClient, 'supportedInstanceTypes'>>,
  now: () => number = Date.now,
): SupportedInstanceTypeReader {
  const read = cachedOfferedTypes(
    async ({ accountId, releaseLabel }: { accountId: string; releaseLabel: string }) =>
      (await clientOf(accountId)).supportedInstanceTypes(releaseLabel),
    {
      isTransient: (error) => error instanceof AppError && retriedErrors.has(String(error.details?.awsError)),
      cacheKey: ({ accountId, releaseLabel }) => JSON.stringify([accountId, releaseLabel]),
      now,
    },
  );
  return (accountId, releaseLabel) => read({ accountId, releaseLabel });
}
