import { z } from 'zod';
import { applyModeSchema } from './apply-mode.js';
import { preferences } from './project-settings.js';

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
    default_preference: z.enum(preferences).default('economy'),
    /** The apply mode of new projects (`manual`, `approve-learning`, `auto`). */
    default_apply_mode: applyModeSchema.default('manual'),
    /** Earlier versions' switch, kept in agreement with `default_apply_mode`: false is `manual`, true `auto`. */
    default_auto_apply: z.boolean().default(false),
    /**
     * Processed runs older than this many days are deleted (rows and event logs), except those a
     * project's model or recommendation still reads; 0 keeps every run.
     */
    run_retention_days: z.number().int().min(0).max(36_500).default(400),
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
    default_preference: z.enum(preferences),
    default_apply_mode: applyModeSchema,
    default_auto_apply: z.boolean(),
    run_retention_days: z.number().int().min(0).max(36_500),
  })
  .partial()
  .strict();

export type OrganizationSettingsPatch = z.infer<typeof organizationSettingsPatchSchema>;

/** `GET`/`PATCH /api/v1/organization/settings`: the settings with who changed them last. */
export const organizationSettingsResponse = organizationSettingsSchema.extend({
  updated_at: z.number().nullable(),
  updated_by: z.string().nullable(),
});
export type OrganizationSettingsResource = z.infer<typeof organizationSettingsResponse>;

/** `GET /api/v1/insights/summary?from=&to=` (epoch ms; default the last 30 days). */
export const organizationSummaryQuery = z.object({
  from: z.coerce.number().int().optional(),
  to: z.coerce.number().int().optional(),
});
