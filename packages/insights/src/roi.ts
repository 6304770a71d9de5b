import { mean, pearson } from '@setpoint/foundation/statistics';
import { chronological, type InsightRun, isSuccessful, runtimeMinutes } from './insight-run.js';

/** At or above this Pearson correlation between input size and runtime, cost/GB is also considered. */
export const strongCorrelation = 0.7;

const bytesPerGb = 1024 ** 3;
const msPerYear = 365 * 24 * 3600 * 1000;

export type RoiMethod = 'cost_change' | 'cost_per_gb_change';

export type RoiReason =
  | 'strong_correlation_larger_saving'
  | 'weak_correlation_cost_change'
  | 'cost_rose_with_data_growth'
  | 'no_input_sizes';

export interface ProjectRoi {
  /** The method whose percentage the savings figures use. */
  method: RoiMethod;
  reason: RoiReason;
  /** Pearson correlation between input size and runtime over all successful runs; null when undefined. */
  correlation: number | null;
  /** Positive when cheaper than the baseline: 0.25 means 25 % less. */
  costChangeSavings: number;
  costPerGbChangeSavings: number | null;
  /** The chosen saving fraction. */
  savingsFraction: number;
  baselineRuns: number;
  optimizedRuns: number;
  baselineCostPerRunUsd: number;
  currentCostPerRunUsd: number;
  savingsToDateUsd: number;
  projected12MonthSavingsUsd: number;
  runsPerYear: number;
}

interface CostedRun {
  run: InsightRun;
  cost: number;
}

/**
 * ROI of one project. The baseline is every successful, costed run before the first run Setpoint
 * configured; the optimized period is every successful, costed run Setpoint configured. Returns null
 * until both periods have at least one run.
 *
 * The saving percentage follows the documented rule: with input size and runtime strongly correlated
 * (Pearson ≥ 0.7) the larger of the cost change and the cost/GB change; otherwise the cost change,
 * unless costs rose while the input grew, then the cost/GB change.
 */
export function projectRoi(runs: readonly InsightRun[]): ProjectRoi | null {
  const ordered = chronological(runs);
  const firstConfigured = ordered.findIndex((run) => run.recommendationId !== null);
  if (firstConfigured < 0) return null;
  const costed = (slice: InsightRun[]): CostedRun[] =>
    slice.filter(isSuccessful).flatMap((run) => (run.costUsd === null ? [] : [{ run, cost: run.costUsd }]));
  const baseline = costed(ordered.slice(0, firstConfigured));
  const optimized = costed(ordered.slice(firstConfigured).filter((run) => run.recommendationId !== null));
  if (baseline.length === 0 || optimized.length === 0) return null;

  const baselineCost = mean(baseline.map((entry) => entry.cost))!;
  const currentCost = mean(optimized.map((entry) => entry.cost))!;
  const costChangeSavings = baselineCost > 0 ? 1 - currentCost / baselineCost : 0;

  const baselinePerGb = costPerGb(baseline);
  const currentPerGb = costPerGb(optimized);
  const costPerGbChangeSavings =
    baselinePerGb !== null && currentPerGb !== null && baselinePerGb > 0
      ? 1 - currentPerGb / baselinePerGb
      : null;

  const correlation = pearson(
    ordered.filter(isSuccessful).flatMap((run) => {
      const minutes = runtimeMinutes(run);
      return run.inputBytes === null || minutes === null ? [] : [[run.inputBytes, minutes] as const];
    }),
  );

  const choice = chooseMethod({
    correlation,
    costChangeSavings,
    costPerGbChangeSavings,
    dataGrew: dataGrew(baseline, optimized),
  });

  // Savings = fraction × what the optimized runs would have cost at the baseline rate.
  const counterfactualUsd =
    choice.method === 'cost_per_gb_change'
      ? baselinePerGb! * (sumBytes(optimized) / bytesPerGb)
      : baselineCost * optimized.length;
  const savingsToDateUsd = choice.savingsFraction * counterfactualUsd;
  const runsPerYear = annualRunRate(ordered);
  const projected12MonthSavingsUsd = (savingsToDateUsd / optimized.length) * runsPerYear;

  return {
    method: choice.method,
    reason: choice.reason,
    correlation,
    costChangeSavings,
    costPerGbChangeSavings,
    savingsFraction: choice.savingsFraction,
    baselineRuns: baseline.length,
    optimizedRuns: optimized.length,
    baselineCostPerRunUsd: baselineCost,
    currentCostPerRunUsd: currentCost,
    savingsToDateUsd,
    projected12MonthSavingsUsd,
    runsPerYear,
  };
}

export function chooseMethod(input: {
  correlation: number | null;
  costChangeSavings: number;
  costPerGbChangeSavings: number | null;
  dataGrew: boolean;
}): { method: RoiMethod; reason: RoiReason; savingsFraction: number } {
  const { correlation, costChangeSavings, costPerGbChangeSavings, dataGrew } = input;
  if (costPerGbChangeSavings === null) {
    return { method: 'cost_change', reason: 'no_input_sizes', savingsFraction: costChangeSavings };
  }
  if (correlation !== null && correlation >= strongCorrelation) {
    return costPerGbChangeSavings > costChangeSavings
      ? {
          method: 'cost_per_gb_change',
          reason: 'strong_correlation_larger_saving',
          savingsFraction: costPerGbChangeSavings,
        }
      : {
          method: 'cost_change',
          reason: 'strong_correlation_larger_saving',
          savingsFraction: costChangeSavings,
        };
  }
  if (costChangeSavings < 0 && dataGrew) {
    return {
      method: 'cost_per_gb_change',
      reason: 'cost_rose_with_data_growth',
      savingsFraction: costPerGbChangeSavings,
    };
  }
  return {
    method: 'cost_change',
    reason: 'weak_correlation_cost_change',
    savingsFraction: costChangeSavings,
  };
}

/** Cost per GB over runs that all report an input size; null if any does not or the total is zero. */
function costPerGb(entries: CostedRun[]): number | null {
  if (entries.some((entry) => entry.run.inputBytes === null)) return null;
  const gb = sumBytes(entries) / bytesPerGb;
  if (gb <= 0) return null;
  return entries.reduce((sum, entry) => sum + entry.cost, 0) / gb;
}

function sumBytes(entries: CostedRun[]): number {
  return entries.reduce((sum, entry) => sum + (entry.run.inputBytes ?? 0), 0);
}

function dataGrew(baseline: CostedRun[], optimized: CostedRun[]): boolean {
  const before = mean(
    baseline.flatMap((entry) => (entry.run.inputBytes === null ? [] : [entry.run.inputBytes])),
  );
  const after = mean(
    optimized.flatMap((entry) => (entry.run.inputBytes === null ? [] : [entry.run.inputBytes])),
  );
  return before !== null && after !== null && after > before;
}

/** Runs per year from the cadence of all runs with a start time; 0 with fewer than two. */
export function annualRunRate(runs: readonly InsightRun[]): number {
  const starts = runs.flatMap((run) => (run.startedAt === null ? [] : [run.startedAt])).sort((a, b) => a - b);
  if (starts.length < 2) return 0;
  const span = starts[starts.length - 1]! - starts[0]!;
  if (span <= 0) return 0;
  return ((starts.length - 1) / span) * msPerYear;
}

export interface OrganizationRoi {
  projects: number;
  projectsWithSavings: number;
  savingsToDateUsd: number;
  projected12MonthSavingsUsd: number;
  /** How many projects' figures used each method. */
  methods: Record<RoiMethod, number>;
}

/** Organization ROI: the sum of every project's figures, with the count of each method used. */
export function organizationRoi(projects: ReadonlyArray<ProjectRoi | null>): OrganizationRoi {
  const methods: Record<RoiMethod, number> = { cost_change: 0, cost_per_gb_change: 0 };
  let savingsToDateUsd = 0;
  let projected12MonthSavingsUsd = 0;
  let projectsWithSavings = 0;
  for (const roi of projects) {
    if (!roi) continue;
    projectsWithSavings += 1;
    methods[roi.method] += 1;
    savingsToDateUsd += roi.savingsToDateUsd;
    projected12MonthSavingsUsd += roi.projected12MonthSavingsUsd;
  }
  return {
    projects: projects.length,
    projectsWithSavings,
    savingsToDateUsd,
    projected12MonthSavingsUsd,
    methods,
  };
}
