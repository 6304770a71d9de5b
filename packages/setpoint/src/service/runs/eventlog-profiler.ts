import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { analyzeEventLog, type EventLogLimits } from '../../eventlog/index.js';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { RunProfiler } from './run-analysis.js';

/** A bundle of one file is that file; several files are one rolling or Databricks log directory. */
export class EventLogProfiler implements RunProfiler {
  constructor(private readonly limits: Partial<EventLogLimits> = {}) {}

  async profile(bundleDirectory: string): Promise<RunProfile> {
    const names = await readdir(bundleDirectory);
    const only = names.length === 1 ? names[0] : undefined;
    try {
      return await analyzeEventLog(only ? path.join(bundleDirectory, only) : bundleDirectory, {
        limits: this.limits,
      });
    } catch (error) {
      // Errors end up on the run and in API answers: name the file, not where the server keeps it.
      if (error instanceof Error) error.message = error.message.replaceAll(`${bundleDirectory}/`, '');
      throw error;
    }
  }
}
