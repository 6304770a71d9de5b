import { z } from 'zod';
import { costTotalsSchema } from './cost.js';

/**
 * Wire shapes (snake_case) of the ROI and insight figures, for the API to attach to projects
 * (`summary` on each project) and to answer `GET /api/v1/insights/summary`. The dashboard reads these.
 */
export const roiMethodSchema = z.enum(['cost_change', 'cost_per_gb_change']);

export const insightWireSchema = z.object({
  kind: z.string(),
  severity: z.enum(['info', 'warning', 'critical']),
  message: z.string(),
  run_id: z.string().nullable(),
});

export const projectRoiWireSchema = z.object({
  method: roiMethodSchema,
  reason: z.string(),
  correlation: z.number().nullable(),
  savings_fraction: z.number(),
  cost_change_savings: z.number(),
  cost_per_gb_change_savings: z.number().nullable(),
  baseline_cost_per_run_usd: z.number(),
  current_cost_per_run_usd: z.number(),
  savings_to_date_usd: z.number(),
  projected_12_month_savings_usd: z.number(),
  runs_per_year: z.number(),
});

export const projectSummaryWireSchema = z.object({
  runs: z.number().int(),
  learning: z.object({ completed_runs: z.number().int(), required_runs: z.number().int() }).nullable(),
  last_run: z
    .object({
      id: z.string(),
      status: z.string().nullable(),
      started_at: z.number().nullable(),
      runtime_minutes: z.number().nullable(),
    })
    .nullable(),
  cost_per_run_usd: z.number().nullable(),
  runtime_minutes: z.number().nullable(),
  sla_hit_rate: z.number().nullable(),
  roi: projectRoiWireSchema.nullable(),
  insights: z.array(insightWireSchema),
});

export const organizationSummaryWireSchema = z.object({
  period: z.object({ from: z.number(), to: z.number() }),
  /** The period's spend at the organization's prices (its discounts applied per component). */
  spend: costTotalsSchema,
  roi: z.object({
    projects: z.number().int(),
    projects_with_savings: z.number().int(),
    savings_to_date_usd: z.number(),
    projected_12_month_savings_usd: z.number(),
    methods: z.object({ cost_change: z.number().int(), cost_per_gb_change: z.number().int() }),
  }),
});

export type InsightWire = z.infer<typeof insightWireSchema>;
export type RoiMethod = z.infer<typeof roiMethodSchema>;
export type ProjectRoiWire = z.infer<typeof projectRoiWireSchema>;
export type ProjectSummaryWire = z.infer<typeof projectSummaryWireSchema>;
export type OrganizationSummaryWire = z.infer<typeof organizationSummaryWireSchema>;
