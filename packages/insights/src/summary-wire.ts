import { z } from 'zod';
import type { Insight } from './project-insights.js';
import type { ProjectSummary } from './project-summary.js';
import type { OrganizationRoi, ProjectRoi } from './roi.js';
import type { Spend } from './spend.js';

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
  spend: z.object({ cloud_usd: z.number(), dbu_usd: z.number(), total_usd: z.number() }),
  roi: z.object({
    projects: z.number().int(),
    projects_with_savings: z.number().int(),
    savings_to_date_usd: z.number(),
    projected_12_month_savings_usd: z.number(),
    methods: z.object({ cost_change: z.number().int(), cost_per_gb_change: z.number().int() }),
  }),
});

export function presentInsight(insight: Insight): z.infer<typeof insightWireSchema> {
  return { kind: insight.kind, severity: insight.severity, message: insight.message, run_id: insight.runId };
}

export function presentProjectRoi(roi: ProjectRoi): z.infer<typeof projectRoiWireSchema> {
  return {
    method: roi.method,
    reason: roi.reason,
    correlation: roi.correlation,
    savings_fraction: roi.savingsFraction,
    cost_change_savings: roi.costChangeSavings,
    cost_per_gb_change_savings: roi.costPerGbChangeSavings,
    baseline_cost_per_run_usd: roi.baselineCostPerRunUsd,
    current_cost_per_run_usd: roi.currentCostPerRunUsd,
    savings_to_date_usd: roi.savingsToDateUsd,
    projected_12_month_savings_usd: roi.projected12MonthSavingsUsd,
    runs_per_year: roi.runsPerYear,
  };
}

/** `learning` says how far the learning phase is ("Learning 2/3"); null outside it. */
export function presentProjectSummary(
  summary: ProjectSummary,
  learning: { completedRuns: number; requiredRuns: number } | null = null,
): z.infer<typeof projectSummaryWireSchema> {
  return {
    runs: summary.runs,
    learning: learning
      ? { completed_runs: learning.completedRuns, required_runs: learning.requiredRuns }
      : null,
    last_run: summary.lastRun
      ? {
          id: summary.lastRun.id,
          status: summary.lastRun.status,
          started_at: summary.lastRun.startedAt,
          runtime_minutes: summary.lastRun.runtimeMinutes,
        }
      : null,
    cost_per_run_usd: summary.costPerRunUsd,
    runtime_minutes: summary.runtimeMinutes,
    sla_hit_rate: summary.slaHitRate,
    roi: summary.roi ? presentProjectRoi(summary.roi) : null,
    insights: summary.insights.map(presentInsight),
  };
}

export function presentOrganizationSummary(input: {
  from: number;
  to: number;
  spend: Spend;
  roi: OrganizationRoi;
}): z.infer<typeof organizationSummaryWireSchema> {
  return {
    period: { from: input.from, to: input.to },
    spend: { cloud_usd: input.spend.cloudUsd, dbu_usd: input.spend.dbuUsd, total_usd: input.spend.totalUsd },
    roi: {
      projects: input.roi.projects,
      projects_with_savings: input.roi.projectsWithSavings,
      savings_to_date_usd: input.roi.savingsToDateUsd,
      projected_12_month_savings_usd: input.roi.projected12MonthSavingsUsd,
      methods: input.roi.methods,
    },
  };
}
