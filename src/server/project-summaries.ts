import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { insightRunFromRun } from '../insights/from-run.js';
import { summarizeProject } from '../insights/project-summary.js';
import { organizationRoi } from '../insights/roi.js';
import { spendInPeriod } from '../insights/spend.js';
import {
  presentOrganizationSummary,
  presentProjectSummary,
  type projectSummaryWireSchema,
} from '../insights/summary-wire.js';
import type { Project } from '../projects/project-service.js';
import { type Run, runListColumns, toRun } from '../projects/run-service.js';
import type { Database } from '../store/database-schema.js';

/** Learning runs the optimizer makes after the cold start. */
const learningRuns = 3;

async function runsByProject(db: Kysely<Database>, projectIds: string[]): Promise<Map<string, Run[]>> {
  const byProject = new Map<string, Run[]>();
  if (projectIds.length === 0) return byProject;
  const rows = await db
    .selectFrom('runs')
    .select(runListColumns)
    .where('project_id', 'in', projectIds)
    .execute();
  for (const row of rows) {
    const run = toRun({ ...row, profile: null });
    byProject.set(run.projectId, [...(byProject.get(run.projectId) ?? []), run]);
  }
  return byProject;
}

function summaryOf(project: Project, runs: Run[], now: number) {
  const summary = summarizeProject(
    runs.map((run) => insightRunFromRun(run)),
    { now, slaMinutes: project.settings.slaMinutes },
  );
  const learning =
    project.phase === 'LEARNING'
      ? { completedRuns: Math.min(learningRuns, Math.max(0, runs.length - 1)), requiredRuns: learningRuns }
      : null;
  return { summary, wire: presentProjectSummary(summary, learning) };
}

/** The projects table's figures (last run, runtime vs SLA, cost, savings, insights) for one page of projects. */
export async function projectSummaries(
  db: Kysely<Database>,
  projects: Project[],
  now = Date.now(),
): Promise<Map<string, z.infer<typeof projectSummaryWireSchema>>> {
  const runs = await runsByProject(
    db,
    projects.map((project) => project.id),
  );
  return new Map(
    projects.map((project) => [project.id, summaryOf(project, runs.get(project.id) ?? [], now).wire]),
  );
}

/** Spend in a period (cloud vs DBU) and savings across every project, for the KPI header. */
export async function organizationSummary(
  db: Kysely<Database>,
  projects: Project[],
  from: number,
  to: number,
  now = Date.now(),
) {
  const runs = await runsByProject(
    db,
    projects.map((project) => project.id),
  );
  const all = [...runs.values()].flat();
  const rois = projects.map((project) => summaryOf(project, runs.get(project.id) ?? [], now).summary.roi);
  return presentOrganizationSummary({
    from,
    to,
    spend: spendInPeriod(all, from, to),
    roi: organizationRoi(rois),
  });
}
