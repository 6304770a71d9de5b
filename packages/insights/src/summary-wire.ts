/** The insights' figures in their wire shapes (`@setpoint/api-contract`), for the API to send. */
import type {
  CostTotals,
  InsightWire,
  OrganizationSummaryWire,
  ProjectRoiWire,
  ProjectSummaryWire,
} from '@setpoint/api-contract';
import type { Insight } from './project-insights.js';
import type { ProjectSummary } from './project-summary.js';
import type { OrganizationRoi, ProjectRoi } from './roi.js';

export function presentInsight(insight: Insight): InsightWire {
  return { kind: insight.kind, severity: insight.severity, message: insight.message, run_id: insight.runId };
}

export function presentProjectRoi(roi: ProjectRoi): ProjectRoiWire {
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

/**
 * `learning` says how far the learning phase is ("Learning 2/3"); null outside it. `paidShare` is the share of
 * the project's list-price cost it pays at the organization's prices (1 without discounts).
 */
export function presentProjectSummary(
  summary: ProjectSummary,
  learning: { completedRuns: number; requiredRuns: number } | null = null,
  paidShare = 1,
): ProjectSummaryWire {
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
    spend: summary.spend,
    spend_window: { from_ms: summary.spendWindow.from, to_ms: summary.spendWindow.to },
    savings: summary.roi
      ? {
          to_date_usd: summary.roi.savingsToDateUsd * paidShare,
          projected_12_month_usd: summary.roi.projected12MonthSavingsUsd * paidShare,
          at_risk: summary.slaHealth.atRisk,
        }
      : null,
    runtime_minutes: summary.runtimeMinutes,
    sla_hit_rate: summary.slaHitRate,
    sla_health: {
      runs: summary.slaHealth.runs,
      met: summary.slaHealth.met,
      missed: summary.slaHealth.missed,
      hit_rate: summary.slaHealth.hitRate,
      target: summary.slaHealth.target,
      at_risk: summary.slaHealth.atRisk,
      last_miss: summary.slaHealth.lastMiss
        ? {
            run_id: summary.slaHealth.lastMiss.runId,
            runtime_minutes: summary.slaHealth.lastMiss.runtimeMinutes,
            failed: summary.slaHealth.lastMiss.failed,
          }
        : null,
    },
    roi: summary.roi ? presentProjectRoi(summary.roi) : null,
    insights: summary.insights.map(presentInsight),
  };
}

export function presentOrganizationSummary(input: {
  from: number;
  to: number;
  spend: CostTotals;
  roi: OrganizationRoi;
  savingsAtRiskUsd?: number;
}): OrganizationSummaryWire {
  return {
    period: { from: input.from, to: input.to },
    spend: input.spend,
    roi: {
      projects: input.roi.projects,
      projects_with_savings: input.roi.projectsWithSavings,
      savings_to_date_usd: input.roi.savingsToDateUsd,
      projected_12_month_savings_usd: input.roi.projected12MonthSavingsUsd,
      savings_at_risk_usd: input.savingsAtRiskUsd ?? 0,
      methods: input.roi.methods,
    },
  };
}
