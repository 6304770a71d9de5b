/** An EMR API error as AWS JSON 1.1 reports it: HTTP 400 with `{__type, Message}`. */
export class EmrApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'EmrApiError';
  }
}

export type EmrErrorType =
  | 'InvalidRequestException'
  | 'ValidationException'
  | 'AccessDeniedException'
  | 'InternalServerException'
  | 'UnknownOperationException'
  | 'MissingAuthenticationTokenException'
  | 'SerializationException';

export function emrError(type: EmrErrorType, message: string, status = 400): EmrApiError {
  return new EmrApiError(type, message, status);
}
