/** The one mapping from error kind to HTTP status and CLI exit code (documented in CONTRIBUTING.md). */
export const errorKinds = {
  validation: { httpStatus: 400, exitCode: 2 },
  /** Input refused for its size alone (a body, a document, a count of values): 413. */
  too_large: { httpStatus: 413, exitCode: 2 },
  not_found: { httpStatus: 404, exitCode: 3 },
  conflict: { httpStatus: 409, exitCode: 4 },
  unauthorized: { httpStatus: 401, exitCode: 5 },
  forbidden: { httpStatus: 403, exitCode: 5 },
  rate_limited: { httpStatus: 429, exitCode: 6 },
  upstream: { httpStatus: 502, exitCode: 7 },
  config: { httpStatus: 500, exitCode: 8 },
  internal: { httpStatus: 500, exitCode: 1 },
} as const satisfies Record<string, { httpStatus: number; exitCode: number }>;

export type ErrorKind = keyof typeof errorKinds;
