import { describe, expect, it } from 'vitest';
import { DatabricksApiError, parseErrorBody } from './api-error.js';

describe('parseErrorBody', () => {
  it.each([
    [
      'standard JSON',
      404,
      '{"error_code":"RESOURCE_DOES_NOT_EXIST","message":"Job 9 does not exist."}',
      'RESOURCE_DOES_NOT_EXIST',
      'Job 9 does not exist.',
    ],
    ['legacy integer error_code', 400, '{"error_code":400,"message":"bad"}', 'BAD_REQUEST', 'bad'],
    ['API 1.2 shape', 500, '{"error":"boom"}', 'INTERNAL_ERROR', 'boom'],
    ['SCIM shape', 403, '{"detail":"no access","status":"403"}', 'PERMISSION_DENIED', 'no access'],
    ['plain text', 400, 'INVALID_STATE: Cluster is not running', 'INVALID_STATE', 'Cluster is not running'],
    ['HTML page', 502, '<html><title>Bad Gateway</title></html>', 'BAD_GATEWAY', 'Bad Gateway'],
    ['empty body', 503, '', 'TEMPORARILY_UNAVAILABLE', 'Service Unavailable'],
  ])('reads the %s', (_name, status, body, errorCode, message) => {
    expect(parseErrorBody(status, status === 503 ? 'Service Unavailable' : '', body)).toEqual({
      errorCode,
      message,
    });
  });
});

describe('DatabricksApiError', () => {
  it('marks throttling and transient faults retryable, client errors not', () => {
    const make = (httpStatus: number, message = 'x') =>
      new DatabricksApiError({ errorCode: 'E', httpStatus, message, path: '/api/2.2/jobs/get' });

    expect(make(429).retryable).toBe(true);
    expect(make(503).retryable).toBe(true);
    expect(make(404).retryable).toBe(false);
    expect(make(400, 'RPC token bucket limit has been exceeded').retryable).toBe(true);
    expect(make(404).message).toBe('Databricks /api/2.2/jobs/get: E (HTTP 404): x');
  });
});
