import { discountedOrganizationSummary } from '../organization/discounted-summary.js';
import type { OrganizationSettingsService } from '../organization/organization-settings-service.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectService } from '../projects/project-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { createProjectSummaries, organizationSummary, type SummaryRuns } from './project-summaries.js';

/** The figures of the projects table and of the organization's KPI header. */
export function createInsightsService(deps: {
  runs: SummaryRuns;
  projects: Pick<ProjectService, 'list'>;
  workspaces: Pick<WorkspaceService, 'list'>;
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

  return {
    projectSummaries,

    /** Spend and savings of every project in a period, at the organization's discounted prices. */
    async organizationSummary(from: number, to: number) {
      // Discounts differ per cloud, so each cloud's projects are summed at list price first.
      const cloudOf = new Map((await deps.workspaces.list()).map((w) => [w.id, w.cloud]));
      const byCloud = new Map<string | null, Project[]>();
      for (const project of await allProjects()) {
        const cloud = (project.workspaceId && cloudOf.get(project.workspaceId)) || null;
        byCloud.set(cloud, [...(byCloud.get(cloud) ?? []), project]);
      }
      if (byCloud.size === 0) byCloud.set(null, []);
      const summaries = await Promise.all(
        [...byCloud].map(async ([cloud, projects]) => ({
          cloud,
          summary: await organizationSummary(deps.runs, projects, from, to),
        })),
      );
      const { settings } = await deps.organizationSettings.get();
      return discountedOrganizationSummary({ from, to }, summaries, settings);
    },
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
