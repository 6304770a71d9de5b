import type { SweepBenchResult } from './run-sweep-bench.js';

/** One of Setpoint's published goals for a measured sweep, and whether this run meets it. */
export interface SweepGoal {
  goal: string;
  value: string;
  /** null when the goal does not apply (e.g. nothing to improve, or gp-ei was not run). */
  met: boolean | null;
}

/** The SLA factor and budget the goals are stated for. */
export const goalSla = '1.1';
export const goalBudget = 10;
const calibrationTolerance = 0.05;
const calibrationMinimumCases = 50;

const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;

/**
 * Setpoint's goals for a sweep at SLA 1.1 and a budget of 10 runs (docs/optimizer.md): a safe and
 * useful first move, a search that finds a near-optimal configuration quickly and never trails a
 * textbook GP-EI, rare misses once learning is over, and first-recommendation probabilities that come
 * true. Empty when the run did not use that SLA and budget.
 */
export function sweepGoals(result: SweepBenchResult, budget: number): SweepGoal[] {
  const setpoint = result.optimizers.setpoint?.[goalSla];
  if (!setpoint || budget < goalBudget) return [];
  const gpEi = result.optimizers['gp-ei']?.[goalSla];
  const perfectShare = result.perfect[goalSla]?.shareImprovable ?? null;
  const within = setpoint.search.pWithin110;
  const goals: SweepGoal[] = [
    {
      goal: 'one-shot SLA violations ≤ 5%',
      value: percent(setpoint.oneShot.slaViolationRate),
      met: setpoint.oneShot.slaViolationRate === null ? null : setpoint.oneShot.slaViolationRate <= 0.05,
    },
    {
      goal: 'one-shot cheaper ≥ 40% (where the perfect share ≥ 80%)',
      value: `${percent(setpoint.oneShot.shareCheaper)} (perfect ${percent(perfectShare)})`,
      met:
        perfectShare === null || perfectShare < 0.8 || setpoint.oneShot.shareCheaper === null
          ? null
          : setpoint.oneShot.shareCheaper >= 0.4,
    },
    {
      goal: 'within 1.1× of the optimum after 6 runs ≥ 70%',
      value: percent(within['6']),
      met: within['6'] === null || within['6'] === undefined ? null : within['6'] >= 0.7,
    },
    {
      goal: 'within 1.1× of the optimum after 10 runs ≥ 85%',
      value: percent(within['10']),
      met: within['10'] === null || within['10'] === undefined ? null : within['10'] >= 0.85,
    },
    {
      goal: 'never below gp-ei at 6 and 10 runs',
      value: gpEi
        ? `${percent(within['6'])} vs ${percent(gpEi.search.pWithin110['6'])}, ${percent(within['10'])} vs ${percent(gpEi.search.pWithin110['10'])}`
        : 'gp-ei not run',
      met: gpEi
        ? (within['6'] ?? 0) >= (gpEi.search.pWithin110['6'] ?? 0) &&
          (within['10'] ?? 0) >= (gpEi.search.pWithin110['10'] ?? 0)
        : null,
    },
    {
      goal: 'SLA misses after learning ≤ 5%',
      value: percent(setpoint.slaViolationRateAfterLearning),
      met:
        setpoint.slaViolationRateAfterLearning === null
          ? null
          : setpoint.slaViolationRateAfterLearning <= 0.05,
    },
    {
      goal: 'median runs to within 1.1× ≤ 5',
      value:
        setpoint.search.medianRunsToWithin110 === null
          ? '> budget'
          : String(setpoint.search.medianRunsToWithin110),
      met: setpoint.search.medianRunsToWithin110 !== null && setpoint.search.medianRunsToWithin110 <= 5,
    },
  ];
  const bins = setpoint.calibration.first.bins.filter((bin) => bin.cases >= calibrationMinimumCases);
  const worst = bins.reduce(
    (gap, bin) => Math.max(gap, Math.abs((bin.observed ?? 0) - (bin.meanClaimed ?? 0))),
    0,
  );
  goals.push({
    goal: 'first recommendations: observed within 5 points of the claim in every bin with ≥ 50 cases',
    value: bins.length === 0 ? 'no bin with 50 cases' : `largest gap ${(worst * 100).toFixed(1)} points`,
    met: bins.length === 0 ? null : worst <= calibrationTolerance,
  });
  return goals;
}
