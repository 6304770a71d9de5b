import { z } from 'zod';

const percent = z.number().min(0).max(100);

/**
 * Organization defaults. Discounts are percentages off list prices (0 = list price); the project
 * defaults fill the settings of every project created afterwards, unless its creator set them.
 */
export const organizationSettingsSchema = z
  .object({
    aws_discount_pct: percent.default(0),
    azure_discount_pct: percent.default(0),
    gcp_discount_pct: percent.default(0),
    dbu_discount_pct: percent.default(0),
    default_sla_minutes: z.number().positive().max(10_080).nullable().default(null),
    default_preference: z.enum(['economy', 'balanced', 'performance']).default('balanced'),
    default_auto_apply: z.boolean().default(false),
  })
  .strict();

export type OrganizationSettings = z.infer<typeof organizationSettingsSchema>;

/** A PATCH names only the fields it changes; unknown fields are refused, not ignored. */
export const organizationSettingsPatchSchema = z
  .object({
    aws_discount_pct: percent,
    azure_discount_pct: percent,
    gcp_discount_pct: percent,
    dbu_discount_pct: percent,
    default_sla_minutes: z.number().positive().max(10_080).nullable(),
    default_preference: z.enum(['economy', 'balanced', 'performance']),
    default_auto_apply: z.boolean(),
  })
  .partial()
  .strict();

export type OrganizationSettingsPatch = z.infer<typeof organizationSettingsPatchSchema>;

export const defaultOrganizationSettings = (): OrganizationSettings => organizationSettingsSchema.parse({});

/** What a new project starts with, in the project settings' own names. */
export function projectDefaultsOf(settings: OrganizationSettings) {
  return {
    slaMinutes: settings.default_sla_minutes,
    preference: settings.default_preference,
    autoApply: settings.default_auto_apply,
  };
}
