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
  /**
   * Spend of the runs that started in the window the KPI header sums (`spend_window`: the 30 whole UTC days
   * up to the end of today), at the organization's prices: the header's spend is the sum of these.
   */
  spend: costTotalsSchema,
  /** Epoch ms, `to` exclusive (named for Python clients, where `from` is a keyword). */
  spend_window: z.object({ from_ms: z.number(), to_ms: z.number() }),
  /**
   * `roi`'s savings at the organization's prices (its discounts, as `spend`): what the KPI header sums.
   * `roi` itself compares runs at list prices. Null when `roi` is.
   */
  savings: z
    .object({
      to_date_usd: z.number(),
      projected_12_month_usd: z.number(),
      /** The project's SLA health is below its target: these savings hold only if its misses stop. */
      at_risk: z.boolean(),
    })
    .nullable(),
  runtime_minutes: z.number().nullable(),
  /** `sla_health.hit_rate`, kept under its first name. */
  sla_hit_rate: z.number().nullable(),
  /**
   * The rolling SLA-hit rate: of the last 10 runs with an outcome, how many met the SLA (a failure or a
   * runtime over the SLA by any amount is a miss); `at_risk` when the rate is below `target` (the 0.9 a
   * recommendation claims).
   */
  sla_health: z.object({
    runs: z.number().int(),
    met: z.number().int(),
    missed: z.number().int(),
    hit_rate: z.number().nullable(),
    target: z.number(),
    at_risk: z.boolean(),
    last_miss: z
      .object({ run_id: z.string(), runtime_minutes: z.number().nullable(), failed: z.boolean() })
      .nullable(),
  }),
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
    /** The part of `savings_to_date_usd` of projects whose SLA health is below its target. */
    savings_at_risk_usd: z.number(),
    methods: z.object({ cost_change: z.number().int(), cost_per_gb_change: z.number().int() }),
  }),
});

/** One project's line of `GET /api/v1/insights/spend`. */
export const projectSpendWireSchema = z.object({
  project_id: z.string(),
  name: z.string(),
  /** The platform of the project's workspace; null for a project without one. */
  platform: z.string().nullable(),
  spend: costTotalsSchema,
  /** At the organization's prices, like `spend`; null until Setpoint has configured a costed run. */
  savings_to_date_usd: z.number().nullable(),
  projected_12_month_savings_usd: z.number().nullable(),
  /** The project's SLA health is below its target (`summary.sla_health.at_risk`). */
  sla_at_risk: z.boolean(),
});

/**
 * `GET /api/v1/insights/spend?from=&to=`: the organization's ledger for a period. `total` is the sum of the
 * projects' `spend` (kind by kind, fee by fee), and each project's is the sum of its runs' components at the
 * organization's prices; the organization summary's `spend` is this `total`.
 */
export const spendReportWireSchema = z.object({
  period: z.object({ from: z.number(), to: z.number() }),
  total: costTotalsSchema,
  savings_to_date_usd: z.number(),
  projected_12_month_savings_usd: z.number(),
  savings_at_risk_usd: z.number(),
  projects: z.array(projectSpendWireSchema),
});

export type InsightWire = z.infer<typeof insightWireSchema>;
export type RoiMethod = z.infer<typeof roiMethodSchema>;
export type ProjectRoiWire = z.infer<typeof projectRoiWireSchema>;
export type ProjectSummaryWire = z.infer<typeof projectSummaryWireSchema>;
export type OrganizationSummaryWire = z.infer<typeof organizationSummaryWireSchema>;
export type ProjectSpendWire = z.infer<typeof projectSpendWireSchema>;
export type SpendReportWire = z.infer<typeof spendReportWireSchema>;
