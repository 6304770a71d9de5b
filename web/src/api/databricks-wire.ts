import type { AccessCheckLine, DiscoveredJob, DiscoverReport } from './types.js';

/** What the server's Databricks routes answer (`src/platforms/databricks/integration/`). */
export interface ServerDiscoverResult {
  windowDays: number;
  jobs: Array<{
    jobId: string;
    name: string;
    compute: string;
    photon: boolean;
    autoscale: boolean;
    imported: boolean;
    runsInWindow: number;
    coreHoursInWindow: number;
    monthlyCostUsd: number | null;
  }>;
  findings: Array<{ id: string; title: string; jobIds: string[]; detail: string }>;
  timeline: Array<{ day: string; jobs: number; coreHours: number }>;
}

export interface ServerAccessCheck {
  ok: boolean;
  checks: AccessCheckLine[];
}

export interface ServerImportResult {
  jobs: Array<{
    jobId: string;
    name: string;
    projects: Array<{ id: string; clusterKey: string }>;
    skipped: Array<{ what: string; reason: string }>;
  }>;
}

export function toDiscoverReport(
  workspaceId: string,
  result: ServerDiscoverResult,
  generatedAt: number,
): DiscoverReport {
  return {
    workspace_id: workspaceId,
    generated_at: generatedAt,
    findings: result.findings.map((finding) => ({
      id: finding.id,
      title: finding.title,
      description: finding.detail,
      job_ids: finding.jobIds,
    })),
    jobs: result.jobs.map(
      (job): DiscoveredJob => ({
        job_id: job.jobId,
        name: job.name,
        creator: null,
        compute: job.compute,
        photon: job.photon,
        autoscaling: job.autoscale,
        runs_in_period: job.runsInWindow,
        core_hours: job.coreHoursInWindow,
        estimated_cost_usd: job.monthlyCostUsd,
        imported: job.imported,
        imported_project_id: null,
      }),
    ),
    timeline: result.timeline.map((point) => ({
      date: point.day,
      jobs: point.jobs,
      core_hours: point.coreHours,
    })),
  };
}

export function toImportedProjects(result: ServerImportResult): {
  projects: Array<{ id: string; job_id: string }>;
} {
  return {
    projects: result.jobs.flatMap((job) =>
      job.projects.map((project) => ({ id: project.id, job_id: job.jobId })),
    ),
  };
}
