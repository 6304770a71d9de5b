import { type OrganizationSettings, organizationSettingsSchema } from '@setpoint/api-contract';

export const defaultOrganizationSettings = (): OrganizationSettings => organizationSettingsSchema.parse({});

/** What a new project starts with, in the project settings' own names. */
export function projectDefaultsOf(settings: OrganizationSettings) {
  return {
    slaMinutes: settings.default_sla_minutes,
    preference: settings.default_preference,
    autoApply: settings.default_auto_apply,
  };
}
