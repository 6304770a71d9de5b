import { type OrganizationSettings, organizationSettingsSchema, withApplyMode } from '@setpoint/api-contract';

/**
 * Stored settings as they read today: a document older than the apply mode says it by its auto-apply switch
 * (on is `auto`, off `manual`); a change naming only one of the two sets the other
 * (`withApplyMode`).
 */
export function organizationApplyMode(
  current: Partial<OrganizationSettings>,
  change: Partial<OrganizationSettings>,
): Pick<OrganizationSettings, 'default_apply_mode' | 'default_auto_apply'> {
  const fields = (settings: Partial<OrganizationSettings>) => ({
    applyMode: settings.default_apply_mode,
    autoApply: settings.default_auto_apply,
  });
  const { applyMode, autoApply } = withApplyMode(fields(current), fields(change));
  return { default_apply_mode: applyMode, default_auto_apply: autoApply };
}

export const defaultOrganizationSettings = (): OrganizationSettings => organizationSettingsSchema.parse({});

/** What a new project starts with, in the project settings' own names. */
export function projectDefaultsOf(settings: OrganizationSettings) {
  return {
    slaMinutes: settings.default_sla_minutes,
    preference: settings.default_preference,
    applyMode: settings.default_apply_mode,
    autoApply: settings.default_apply_mode !== 'manual',
  };
}
