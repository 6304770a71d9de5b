import {
  organizationRoi,
  presentOrganizationSummary,
  presentProjectSummary,
  type projectSummaryWireSchema,
  spendInPeriod,
  summarizeProject,
} from '@setpoint/insights';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Project } from '../projects/project-service.js';
import { type Run, runListColumns, toRun } from '../projects/run-service.js';
import type { Database } from '../store/database-schema.js';
import { insightRunFromRun } from './insight-run-from-run.js';

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

type ProjectSummaryWire = z.infer<typeof projectSummaryWireSchema>;

/** Insights such as "dormant" depend on the clock; an hour is far finer than any of their thresholds. */
const clockBucketMs = 3_600_000;

/**
 * The projects table's figures (last run, runtime vs SLA, cost, savings, insights) for one page of
 * projects. Summaries are computed from every run of a project, so each one is kept until the
 * project, its runs or the hour change: a page costs one index-only version query when nothing moved.
 */
export function createProjectSummaries(db: Kysely<Database>, maxEntries = 50_000) {
  const cache = new Map<string, { version: string; wire: ProjectSummaryWire }>();

  async function runVersions(projectIds: string[]): Promise<Map<string, string>> {
    const rows = await db
      .selectFrom('runs')
      .select((eb) => [
        'project_id',
        eb.fn.countAll<number>().as('runs'),
        eb.fn.max('updated_at').as('latest'),
      ])
      .where('project_id', 'in', projectIds)
      .groupBy('project_id')
      .execute();
    return new Map(rows.map((row) => [row.project_id, `${Number(row.runs)}:${Number(row.latest)}`]));
  }

  function remember(projectId: string, version: string, wire: ProjectSummaryWire): void {
    cache.delete(projectId);
    cache.set(projectId, { version, wire });
    // Map iteration is insertion order, so the first key is the least recently computed.
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value ?? projectId);
  }

  return async function projectSummaries(
    projects: Project[],
    now = Date.now(),
  ): Promise<Map<string, ProjectSummaryWire>> {
    const result = new Map<string, ProjectSummaryWire>();
    if (projects.length === 0) return result;
    const runVersion = await runVersions(projects.map((project) => project.id));
    const clock = Math.floor(now / clockBucketMs);
    const version = (project: Project) =>
      `${project.updatedAt}:${project.settings.slaMinutes}:${runVersion.get(project.id) ?? '0'}:${clock}`;
    const stale = projects.filter((project) => {
      const cached = cache.get(project.id);
      if (cached?.version !== version(project)) return true;
      result.set(project.id, cached.wire);
      return false;
    });
    const runs = await runsByProject(
      db,
      stale.map((project) => project.id),
    );
    for (const project of stale) {
      const wire = summaryOf(project, runs.get(project.id) ?? [], now).wire;
      remember(project.id, version(project), wire);
      result.set(project.id, wire);
    }
    return result;
  };
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
