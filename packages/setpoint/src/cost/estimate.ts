import { ValidationError } from '@setpoint/foundation/errors';
import type { ClusterCostSpec, CostBreakdown, WorkerProfile } from './cluster-spec.js';
import type { CostModel } from './cost-model.js';
import { type CostRange, exactly } from './range.js';

/** The estimated cost of running a hypothetical cluster for a duration. */
export interface ClusterEstimate extends CostBreakdown {
  hours: number;
  /** Driver count and the expected (time-weighted mean) worker count. */
  nodes: { driver: number; workers: number };
}

/** Worker-hours over `hours` for a profile: a range for autoscaling (all at min … all at max). */
export function workerHours(profile: WorkerProfile, hours: number): CostRange {
  switch (profile.kind) {
    case 'fixed':
      return exactly(profile.workers * hours);
    case 'steps': {
      const total = profile.steps.reduce((sum, step) => sum + step.hours, 0);
      if (Math.abs(total - hours) > 1e-9) {
        throw new ValidationError(
          'INVALID_WORKER_STEPS',
          `worker steps cover ${total} h but the estimate is for ${hours} h`,
        );
      }
      return exactly(profile.steps.reduce((sum, step) => sum + step.hours * step.workers, 0));
    }
    case 'autoscale': {
      const { min, max } = profile;
      const ramp = profile.rampMinutes / 60;
      // Linear climb from min to max over the ramp, then max: the area under that worker curve.
      const expected =
        ramp <= hours
          ? ((min + max) / 2) * ramp + max * (hours - ramp)
          : min * hours + ((max - min) * hours * hours) / (2 * ramp);
      return { low: min * hours, expected: ramp === 0 ? max * hours : expected, high: max * hours };
    }
  }
}

function validate(profile: WorkerProfile, hours: number): void {
  if (!(hours > 0) || !Number.isFinite(hours)) {
    throw new ValidationError('INVALID_HOURS', `hours must be a positive number, got ${hours}`);
  }
  const counts =
    profile.kind === 'fixed'
      ? [profile.workers]
      : profile.kind === 'autoscale'
        ? [profile.min, profile.max]
        : profile.steps.map((step) => step.workers);
  if (counts.some((count) => !Number.isInteger(count) || count < 0)) {
    throw new ValidationError('INVALID_WORKERS', 'worker counts must be whole numbers ≥ 0');
  }
  if (profile.kind === 'autoscale' && (profile.min > profile.max || profile.rampMinutes < 0)) {
    throw new ValidationError(
      'INVALID_AUTOSCALE',
      `autoscale needs min ≤ max and a ramp ≥ 0 (got ${profile.min}:${profile.max})`,
    );
  }
}

/** Estimated cost of `spec` running `hours` with the given workers (driver always up for the whole time). */
export function estimateClusterCost(
  model: CostModel,
  spec: ClusterCostSpec,
  profile: WorkerProfile,
  hours: number,
): ClusterEstimate {
  validate(profile, hours);
  const rate = model.rateCluster(spec);
  const all = workerHours(profile, hours);
  const lowestWorkers =
    profile.kind === 'fixed'
      ? profile.workers
      : profile.kind === 'autoscale'
        ? profile.min
        : Math.min(...profile.steps.map((step) => step.workers));
  const onDemandHours = Math.min(Math.max(0, spec.firstOnDemand - 1), lowestWorkers) * hours;
  const marketHours = {
    low: all.low - onDemandHours,
    expected: all.expected - onDemandHours,
    high: all.high - onDemandHours,
  };
  const breakdown = model.sum([
    { hours: exactly(hours), rate: rate.driver },
    { hours: exactly(onDemandHours), rate: rate.onDemandWorker },
    { hours: marketHours, rate: rate.worker },
  ]);
  return { ...breakdown, hours, nodes: { driver: 1, workers: all.expected / hours } };
}
