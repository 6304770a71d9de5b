import { PermanentJobError } from './job-queue.js';

/**
 * Runs a job's work and parks it at once (no retry) when it fails with an error `isPermanent` picks: a refusal
 * that will not change on retry. Any other error is thrown as it is, so the queue retries it.
 */
export async function parkWhen(
  isPermanent: (error: unknown) => boolean,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (isPermanent(error))
      throw new PermanentJobError(error instanceof Error ? error.message : String(error), { cause: error });
    throw error;
  }
}
