import { buildRunProfile, type ProfileOptions } from './build-run-profile.js';
import { resolveEventLog } from './layout/resolve-layout.js';
import { type ReadOptions, readEventLog } from './read-event-log.js';
import type { RunProfile } from './run-profile.js';

export interface AnalyzeOptions extends ReadOptions, Omit<ProfileOptions, 'limits'> {
  /** Which log to read when `path` holds several (a Databricks spark_context_id, a file or directory name). */
  context?: string;
}

/** Reads the event log at `path` (any layout and codec) and returns its RunProfile. */
export async function analyzeEventLog(path: string, options: AnalyzeOptions = {}): Promise<RunProfile> {
  const unit = await resolveEventLog(path, options.context, options.limits);
  const { run, source } = await readEventLog(unit, options);
  return buildRunProfile(run, source, options);
}
