import { withApplyMode } from '@setpoint/api-contract';
import { projectDefaultsOf } from '../organization/organization-settings.js';
import type { OrganizationSettingsService } from '../organization/organization-settings-service.js';
import type { Project, ProjectInput } from './project-service.js';

/**
 * The project service, with every new project starting from the organization's defaults; a
 * setting its creator gives (even null, "no SLA") wins over the default.
 */
export function withOrganizationDefaults<
  Service extends { create(input: ProjectInput, actor: string): Promise<Project> },
>(projects: Service, organization: Pick<OrganizationSettingsService, 'get'>): Service {
  return {
    ...projects,
    async create(input: ProjectInput, actor: string): Promise<Project> {
      const defaults = projectDefaultsOf((await organization.get()).settings);
      const given = Object.fromEntries(
        Object.entries(input.settings ?? {}).filter(([, value]) => value !== undefined),
      );
      // a creator who names only the auto-apply switch (clients of earlier versions) sets the mode with it
      const mode =
        typeof given.autoApply === 'boolean' && given.applyMode === undefined
          ? withApplyMode(defaults, { autoApply: given.autoApply })
          : {};
      return projects.create({ ...input, settings: { ...defaults, ...given, ...mode } }, actor);
    },
  };
}
