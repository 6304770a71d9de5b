import type { SpendReportWire } from '@setpoint/api-contract';
import { organizationPrices } from '../organization/discounts.js';
import type { OrganizationSettingsService } from '../organization/organization-settings-service.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectService } from '../projects/project-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import {
  createProjectSummaries,
  organizationSummary,
  projectSpends,
  type SummaryRuns,
} from './project-summaries.js';

/** The figures of the projects table, the organization's KPI header and its spend report. */
export function createInsightsService(deps: {
  runs: SummaryRuns;
  projects: Pick<ProjectService, 'list'>;
  workspaces: Pick<WorkspaceService, 'list'>;
  organizationSettings: Pick<OrganizationSettingsService, 'get'>;
}) {
  const prices = async () => organizationPrices((await deps.organizationSettings.get()).settings);
  const projectSummaries = createProjectSummaries(deps.runs, prices);

  async function allProjects(): Promise<Project[]> {
    const all: Project[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await deps.projects.list({ limit: 500, offset, sort: 'created_at' });
      all.push(...page.items);
      if (all.length >= page.total || page.items.length === 0) return all;
    }
  }

  /** Every project's spend in the period and its savings, at the organization's discounted prices. */
  async function spendByProject(from: number, to: number) {
    return projectSpends(deps.runs, await allProjects(), { from, to }, await prices());
  }

  return {
    projectSummaries,

    /** Spend and savings of every project in a period, at the organization's discounted prices. */
    async organizationSummary(from: number, to: number) {
      return organizationSummary({ from, to }, await spendByProject(from, to));
    },

    /** The organization's ledger for a period: its total, and each project's share of it. */
    async spendReport(from: number, to: number): Promise<SpendReportWire> {
      const projects = await spendByProject(from, to);
      const platformOf = new Map((await deps.workspaces.list()).map((w) => [w.id, w.platform]));
      const summary = organizationSummary({ from, to }, projects);
      return {
        period: summary.period,
        total: summary.spend,
        savings_to_date_usd: summary.roi.savings_to_date_usd,
        projected_12_month_savings_usd: summary.roi.projected_12_month_savings_usd,
        savings_at_risk_usd: summary.roi.savings_at_risk_usd,
        projects: projects.map(({ project, spend, roi, slaAtRisk }) => ({
          project_id: project.id,
          name: project.name,
          platform: (project.workspaceId && platformOf.get(project.workspaceId)) || null,
          spend,
          savings_to_date_usd: roi?.savingsToDateUsd ?? null,
          projected_12_month_savings_usd: roi?.projected12MonthSavingsUsd ?? null,
          sla_at_risk: slaAtRisk,
        })),
      };
    },
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
