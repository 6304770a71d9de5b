import { AppError, ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';

/**
 * The emulator answers with the Databricks error body `{error_code, message}`; the AppError `code`
 * carries the Databricks `error_code` and the kind decides the HTTP status (src/errors/error-kinds.ts).
 */
export function invalidParameter(message: string): ValidationError {
  return new ValidationError('INVALID_PARAMETER_VALUE', message);
}

export function resourceMissing(message: string): NotFoundError {
  return new NotFoundError('RESOURCE_DOES_NOT_EXIST', message);
}

export function alreadyExists(message: string): ConflictError {
  return new ConflictError('RESOURCE_ALREADY_EXISTS', message);
}

export function unauthenticated(): AppError {
  return new AppError(
    'unauthorized',
    'UNAUTHENTICATED',
    'Credential was not sent or was of an unsupported type for this API.',
  );
}

export function invalidState(message: string): ValidationError {
  return new ValidationError('INVALID_STATE', message);
}
