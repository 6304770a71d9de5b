import { type AppError, isAppError } from '@setpoint/foundation/errors';

/** The AppError a promise rejects with; any other outcome (success, an untyped error) fails the test. */
export async function errorOf(promise: Promise<unknown>): Promise<AppError & { limit?: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
