/**
 * Every error Setpoint raises on purpose is an AppError subclass with a stable `code`.
 * The HTTP status and the CLI exit code for each kind live in `error-kinds.ts` only.
 */
import type { ErrorKind } from './error-kinds.js';

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.details = options.details;
  }
}

export class ValidationError extends AppError {
  constructor(code: string, message: string, options?: AppErrorOptions) {
    super('validation', code, message, options);
  }
}

/** Input larger than Setpoint accepts (the message names the limit). */
export class TooLargeError extends AppError {
  constructor(code: string, message: string, options?: AppErrorOptions) {
    super('too_large', code, message, options);
  }
}

export class NotFoundError extends AppError {
  constructor(code: string, message: string, options?: AppErrorOptions) {
    super('not_found', code, message, options);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message: string, options?: AppErrorOptions) {
    super('conflict', code, message, options);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid credentials', options?: AppErrorOptions) {
    super('unauthorized', 'UNAUTHORIZED', message, options);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('forbidden', 'FORBIDDEN', message, options);
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('rate_limited', 'RATE_LIMITED', message, options);
  }
}

export class UpstreamError extends AppError {
  constructor(code: string, message: string, options?: AppErrorOptions) {
    super('upstream', code, message, options);
  }
}

export class ConfigError extends AppError {
  constructor(message: string, options?: AppErrorOptions) {
    super('config', 'CONFIG_INVALID', message, options);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Bad input (invalid, or naming what does not exist): it fails the same way however often it is tried. */
export function isBadInput(error: unknown): error is AppError {
  return (
    isAppError(error) &&
    (error.kind === 'validation' || error.kind === 'too_large' || error.kind === 'not_found')
  );
}
