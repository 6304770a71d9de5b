import type { EmrServerlessClient } from '../api/emr-serverless-client.js';
import type { JobRunSummary, ServerlessApplicationSummary } from '../api/emr-serverless-schema.js';
import { normalizeRunName } from '../discovery/grouping.js';

/** A recurring job of an EMR Serverless application: its runs, oldest first. */
export interface ServerlessJob {
  applicationId: string;
  key: string;
  runs: JobRunSummary[];
  /** Seen at least twice: worth a project. */
  recurring: boolean;
}

export interface DiscoveredApplication {
  application: ServerlessApplicationSummary;
  jobs: ServerlessJob[];
}

/** Unnamed job runs whose entry point discovery reads (GetJobRun each): beyond it they stay ungrouped. */
const maxUnnamedReads = 200;

/**
 * The job a run belongs to: its name without run-specific parts (`orders-2026-03-02` → `orders`), as the EMR
 * on EC2 step-name rule does, else the script or jar it runs (its entry point); null with neither.
 */
export function emrServerlessJobKey(run: {
  name?: string | null | undefined;
  entryPoint?: string | null | undefined;
}): string | null {
  if (run.name) return normalizeRunName(run.name);
  return run.entryPoint ?? null;
}

function groupJobs(applicationId: string, runs: Array<{ run: JobRunSummary; key: string }>): ServerlessJob[] {
  const byKey = new Map<string, JobRunSummary[]>();
  for (const { run, key } of runs) byKey.set(key, [...(byKey.get(key) ?? []), run]);
  return [...byKey.entries()]
    .map(([key, list]) => ({
      applicationId,
      key,
      runs: [...list].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
      recurring: list.length >= 2,
    }))
    .sort((a, b) => b.runs.length - a.runs.length || a.key.localeCompare(b.key));
}

/**
 * The account region's EMR Serverless applications (or the one named) and their job runs created since a date,
 * grouped into jobs (`emrServerlessJobKey`). A run without a name is grouped by its entry point, read with
 * GetJobRun (at most `maxUnnamedReads` per discovery; the rest are counted as ungrouped).
 */
export async function discoverServerlessJobs(
  client: Pick<EmrServerlessClient, 'listApplications' | 'listJobRuns' | 'getJobRun'>,
  options: { since: number; applicationId?: string | undefined },
): Promise<{ applications: DiscoveredApplication[]; ungrouped: number }> {
  const applications: DiscoveredApplication[] = [];
  let unnamedReads = 0;
  let ungrouped = 0;
  for await (const application of client.listApplications()) {
    if (options.applicationId && application.id !== options.applicationId) continue;
    const keyed: Array<{ run: JobRunSummary; key: string }> = [];
    for await (const run of client.listJobRuns(application.id, { createdAfter: new Date(options.since) })) {
      let key = emrServerlessJobKey({ name: run.name });
      if (key === null && unnamedReads < maxUnnamedReads) {
        unnamedReads += 1;
        const full = await client.getJobRun(application.id, run.id);
        key = emrServerlessJobKey({ entryPoint: full.jobDriver?.sparkSubmit?.entryPoint });
      }
      if (key === null) ungrouped += 1;
      else keyed.push({ run, key });
    }
    applications.push({ application, jobs: groupJobs(application.id, keyed) });
  }
  return { applications, ungrouped };
}
