import { AppError, type ErrorKind, errorKinds, isAppError } from '@setpoint/foundation/errors';
import type { AnalyzeOptions } from '../analyze-event-log.js';
import type { ReadProgress } from '../read-event-log.js';
import type { RunProfile } from '../run-profile.js';

/** What the parent sends: everything in AnalyzeOptions that can cross a thread (no callbacks). */
export interface ProfileJob {
  path: string;
  options: Omit<AnalyzeOptions, 'onProgress'>;
  reportProgress: boolean;
}

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  name: string;
  message: string;
  kind?: string;
  code?: string;
  details?: Record<string, unknown>;
}

export type WorkerMessage =
  | { type: 'progress'; progress: ReadProgress }
  | { type: 'done'; profile: RunProfile }
  | { type: 'failed'; error: SerializedError };

/** An error as a worker posts it: an AppError keeps its kind, code and details. */
export function serializeWorkerError(error: unknown): SerializedError {
  return isAppError(error)
    ? { name: error.name, message: error.message, kind: error.kind, code: error.code, details: error.details }
    : { name: 'Error', message: error instanceof Error ? error.message : String(error) };
}

/** The posted error as the caller throws it: the worker's AppError, or an internal one with `fallbackCode`. */
export function reviveWorkerError(error: SerializedError, fallbackCode: string): AppError {
  if (error.kind && error.code && error.kind in errorKinds) {
    return new AppError(
      error.kind as ErrorKind,
      error.code,
      error.message,
      error.details ? { details: error.details } : {},
    );
  }
  return new AppError('internal', fallbackCode, error.message);
}
