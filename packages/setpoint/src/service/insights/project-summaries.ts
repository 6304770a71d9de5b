import type { CostTotals, ProjectSummaryWire } from '@setpoint/api-contract';
import {
  type ComponentFactor,
  CostTotalsBuilder,
  organizationRoi,
  type ProjectRoi,
  presentOrganizationSummary,
  presentProjectSummary,
  spendInPeriod,
  summarizeProject,
} from '@setpoint/insights';
import { listPrices, type OrganizationPrices } from '../organization/discounts.js';
import type { Project } from '../projects/project-records.js';
import { learningRunsFor } from '../recommender/learning.js';
import { type Run, toRun } from '../runs/run-records.js';
import type { RunRepository } from '../runs/run-repository.js';
import { insightRunFromRun } from './insight-run-from-run.js';

export type SummaryRuns = Pick<RunRepository, 'ofProjects' | 'versions'>;

async function runsByProject(runs: SummaryRuns, projectIds: string[]): Promise<Map<string, Run[]>> {
  const byProject = new Map<string, Run[]>();
  for (const record of await runs.ofProjects(projectIds)) {
    const run = toRun(record);
    byProject.set(run.projectId, [...(byProject.get(run.projectId) ?? []), run]);
  }
  return byProject;
}

function summaryOf(project: Project, runs: Run[], now: number, prices: OrganizationPrices) {
  const summary = summarizeProject(
    runs.map((run) => insightRunFromRun(run)),
    { now, slaMinutes: project.settings.slaMinutes, factor: prices.factor },
  );
  const learningRuns = learningRunsFor(project.settings.learningMissBudget);
  const learning =
    project.phase === 'LEARNING'
      ? { completedRuns: Math.min(learningRuns, Math.max(0, runs.length - 1)), requiredRuns: learningRuns }
      : null;
  const share = paidShare(runs, prices.factor);
  return { summary, share, wire: presentProjectSummary(summary, learning, share) };
}

/** Insights such as "dormant" depend on the clock; an hour is far finer than any of their thresholds. */
const clockBucketMs = 3_600_000;

/**
 * The projects table's figures (last run, runtime vs SLA, cost, savings, insights) for one page of
 * projects. Summaries are computed from every run of a project, so each one is kept until the
 * project, its runs or the hour change: a page costs one index-only version query when nothing moved.
 */
export function createProjectSummaries(
  runs: SummaryRuns,
  pricesNow: () => Promise<OrganizationPrices> = async () => listPrices,
  maxEntries = 50_000,
) {
  const cache = new Map<string, { version: string; wire: ProjectSummaryWire }>();

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
    const runVersion = await runs.versions(projects.map((project) => project.id));
    const prices = await pricesNow();
    const clock = Math.floor(now / clockBucketMs);
    const version = (project: Project) =>
      `${project.updatedAt}:${project.settings.slaMinutes}:${runVersion.get(project.id) ?? '0'}:${clock}:${prices.key}`;
    const stale = projects.filter((project) => {
      const cached = cache.get(project.id);
      if (cached?.version !== version(project)) return true;
      result.set(project.id, cached.wire);
      return false;
    });
    const staleRuns = await runsByProject(
      runs,
      stale.map((project) => project.id),
    );
    for (const project of stale) {
      const wire = summaryOf(project, staleRuns.get(project.id) ?? [], now, prices).wire;
      remember(project.id, version(project), wire);
      result.set(project.id, wire);
    }
    return result;
  };
}

/** One project's spend in a period and its savings, at the organization's prices. */
export interface ProjectSpend {
  project: Project;
  spend: CostTotals;
  roi: ProjectRoi | null;
  /** Its SLA health is below its target: its savings are at risk. */
  slaAtRisk: boolean;
}

/** The share of a project's list-price cost it pays after discounts (1 when it has no cost yet). */
function paidShare(runs: readonly Run[], factor: ComponentFactor): number {
  let list = 0;
  let paid = 0;
  for (const run of runs) {
    for (const component of run.cost?.components ?? []) {
      list += component.usd;
      paid += component.usd * factor(component);
    }
  }
  return list > 0 ? paid / list : 1;
}

/**
 * Each project's spend in [from, to) and its savings at the organization's prices: every cost component at
 * its discount; savings scale by the share of its list-price cost the project pays (as the projects table's).
 */
export async function projectSpends(
  runSource: SummaryRuns,
  projects: Project[],
  period: { from: number; to: number },
  prices: OrganizationPrices,
  now = Date.now(),
): Promise<ProjectSpend[]> {
  const runs = await runsByProject(
    runSource,
    projects.map((project) => project.id),
  );
  return projects.map((project) => {
    const own = runs.get(project.id) ?? [];
    const { summary, share } = summaryOf(project, own, now, prices);
    const roi = summary.roi;
    return {
      project,
      slaAtRisk: summary.slaHealth.atRisk,
      spend: spendInPeriod(own, period.from, period.to, prices.factor),
      roi: roi && {
        ...roi,
        savingsToDateUsd: roi.savingsToDateUsd * share,
        projected12MonthSavingsUsd: roi.projected12MonthSavingsUsd * share,
      },
    };
  });
}

/** The organization's figures: the sums of its projects' (spend by kind, fee and platform; savings). */
export function organizationSummary(period: { from: number; to: number }, projects: readonly ProjectSpend[]) {
  const spend = new CostTotalsBuilder();
  let savingsAtRiskUsd = 0;
  for (const project of projects) {
    spend.addTotals(project.spend);
    if (project.slaAtRisk) savingsAtRiskUsd += project.roi?.savingsToDateUsd ?? 0;
  }
  return presentOrganizationSummary({
    ...period,
    spend: spend.build(),
    roi: organizationRoi(projects.map((project) => project.roi)),
    savingsAtRiskUsd,
  });
}
