import { discountFactor } from '../organization/discounts.js';
import type { OrganizationSettingsService } from '../organization/organization-settings-service.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectService } from '../projects/project-service.js';
import {
  createProjectSummaries,
  organizationSummary,
  projectSpends,
  type SummaryRuns,
} from './project-summaries.js';

/** The figures of the projects table and of the organization's KPI header. */
export function createInsightsService(deps: {
  runs: SummaryRuns;
  projects: Pick<ProjectService, 'list'>;
  organizationSettings: Pick<OrganizationSettingsService, 'get'>;
}) {
  const projectSummaries = createProjectSummaries(deps.runs);

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
    const { settings } = await deps.organizationSettings.get();
    return projectSpends(deps.runs, await allProjects(), { from, to }, discountFactor(settings));
  }

  return {
    projectSummaries,
    spendByProject,

    /** Spend and savings of every project in a period, at the organization's discounted prices. */
    async organizationSummary(from: number, to: number) {
      return organizationSummary({ from, to }, await spendByProject(from, to));
    },
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
