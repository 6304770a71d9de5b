import { AppError, NotFoundError, UpstreamError } from '@setpoint/foundation/errors';

/** Error names (`__type`) AWS sends when the caller lacks a permission or valid credentials. */
const deniedNames = new Set([
  'AccessDeniedException',
  'AccessDenied',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'MissingAuthenticationTokenException',
  'CredentialsProviderError',
]);

/** Throttling and server faults heal on retry; the SDK already retried them with backoff. */
const transientNames = new Set(['ThrottlingException', 'InternalServerException', 'InternalServerError']);

export interface EmrErrorShape {
  name: string;
  message: string;
  $metadata?: { httpStatusCode?: number | undefined } | undefined;
}

function shapeOf(error: unknown): EmrErrorShape {
  if (error instanceof Error) return error as EmrErrorShape;
  return { name: 'Error', message: String(error) };
}

/** Whether AWS refused the call for want of a permission or credentials. */
export function isAccessDenied(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'EMR_ACCESS_DENIED';
  const shape = shapeOf(error);
  return deniedNames.has(shape.name) || shape.$metadata?.httpStatusCode === 403;
}

/**
 * One error map for the EMR adapter. The SDK's error is not kept as the cause: it carries the signed
 * request. `InvalidRequestException` (an unknown cluster, instance group or fleet) is not found.
 */
/** The AWS service an error came from: its name in messages and its IAM action prefix. */
export interface AwsService {
  name: string;
  iam: string;
}
export const emrService: AwsService = { name: 'EMR', iam: 'elasticmapreduce' };

export function describeEmrError(
  error: unknown,
  operation: string,
  service: AwsService = emrService,
): AppError {
  if (error instanceof AppError) return error;
  const shape = shapeOf(error);
  const status = shape.$metadata?.httpStatusCode;
  if (isAccessDenied(error))
    return new AppError(
      'upstream',
      'EMR_ACCESS_DENIED',
      `${service.name} ${operation}: access denied (${shape.name}): ${shape.message}; grant ${service.iam}:${operation} to the connection's identity`,
      { details: { operation, awsError: shape.name } },
    );
  if (
    shape.name === 'ResourceNotFoundException' ||
    (shape.name === 'InvalidRequestException' && /not valid|does not exist/i.test(shape.message))
  )
    return new NotFoundError('EMR_RESOURCE_NOT_FOUND', `${service.name} ${operation}: ${shape.message}`);
  if (shape.name === 'InvalidRequestException' || shape.name === 'ValidationException')
    return new AppError(
      'upstream',
      'EMR_REQUEST_REJECTED',
      `${service.name} ${operation} rejected the request: ${shape.message}`,
      {
        details: { operation, awsError: shape.name },
      },
    );
  const transient = transientNames.has(shape.name) || status === undefined || status >= 500;
  return new UpstreamError(
    transient ? 'EMR_REQUEST_FAILED' : 'EMR_REQUEST_REJECTED',
    `${service.name} ${operation} failed: ${shape.name} (HTTP ${status ?? '?'}): ${shape.message}`,
    { details: { operation, awsError: shape.name } },
  );
}
