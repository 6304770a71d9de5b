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
