import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  type EventLogLimits,
  parseFailureDisposition,
  profileEventLogInWorker,
  type WorkerLimits,
} from '../../eventlog/index.js';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { RunProfiler } from './run-analysis.js';

/**
 * Reads a run's event log in a worker thread (wall-clock timeout, heap cap), so a hostile log burns
 * that thread only: the API's event loop, `/healthz` and the queue's lease heartbeats keep running.
 * A bundle of one file is that file; several files are one rolling or Databricks log directory.
 */
export class EventLogProfiler implements RunProfiler {
  constructor(
    private readonly limits: Partial<EventLogLimits> = {},
    private readonly worker: Partial<WorkerLimits> = {},
  ) {}

  async profile(bundleDirectory: string): Promise<RunProfile> {
    const names = await readdir(bundleDirectory);
    const only = names.length === 1 ? names[0] : undefined;
    try {
      return await profileEventLogInWorker(only ? path.join(bundleDirectory, only) : bundleDirectory, {
        limits: this.limits,
        worker: this.worker,
      });
    } catch (error) {
      // Errors end up on the run and in API answers: name the file, not where the server keeps it.
      if (error instanceof Error) error.message = error.message.replaceAll(`${bundleDirectory}/`, '');
      // A timeout depends on the machine's load: retried (the queue's attempts bound it), not parked.
      if (parseFailureDisposition(error) === 'retry') {
        throw new Error((error as Error).message, { cause: error });
      }
      throw error;
    }
  }
}
