import { organizationSettingsPatchSchema, organizationSettingsResponse } from '@setpoint/api-contract';
import { ForbiddenError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../service/auth/principal.js';
import type {
  OrganizationSettingsService,
  OrganizationSettingsView,
} from '../../service/organization/organization-settings-service.js';

const bearer = [{ bearerAuth: [] }];

const present = (view: OrganizationSettingsView) => ({
  ...view.settings,
  updated_at: view.updatedAt,
  updated_by: view.updatedBy,
});

/** Organization defaults: everyone signed in reads them, admins change them (audited with the user). */
export function organizationRoutes(settings: OrganizationSettingsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/organization/settings',
      {
        schema: {
          tags: ['organization'],
          summary: 'Organization defaults: cloud and DBU discounts, settings for new projects',
          security: bearer,
          response: { 200: organizationSettingsResponse },
        },
      },
      async () => present(await settings.get()),
    );

    app.patch(
      '/api/v1/organization/settings',
      {
        schema: {
          tags: ['organization'],
          summary: 'Change organization defaults (admins only); names only the fields that change',
          security: bearer,
          body: organizationSettingsPatchSchema,
          response: { 200: organizationSettingsResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        if (principal.role !== 'admin') {
          throw new ForbiddenError('only admins may change the organization settings');
        }
        return present(await settings.update(request.body, principal.actor));
      },
    );
  };
}
