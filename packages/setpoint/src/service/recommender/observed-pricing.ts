import { median } from '@setpoint/foundation/statistics';
import type { Candidate, Observation } from '../../optimizer/types.js';

/**
 * A candidate's price is the catalog's rate of its cluster at full size. What a run really cost comes
 * from its node timeline (the nodes an autoscaled cluster actually held, the spot price it actually
 * paid, the minutes before executors came up): the ratio of the two is the configuration's price factor.
 */
export interface PriceCalibration {
  /** Candidate id → observed cost over the catalog rate × runtime (median over its completed runs). */
  factors: Map<string, number>;
  /**
   * Kind (e.g. autoscaled on spot) → the median factor of its tried candidates: what an untried candidate
   * of that kind is priced with (1 when no candidate of its kind ran).
   */
  kindFactors: Map<string, number>;
}

/** Factors outside this range are a costing fault, not a price: they are ignored. */
const plausibleFactor = { min: 0.1, max: 3 };

export function calibratePrices(
  candidates: readonly Candidate[],
  observations: readonly Observation[],
  kindOf: (candidate: Candidate) => string,
): PriceCalibration {
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
  const ratios = new Map<string, number[]>();
  for (const observation of observations) {
    const candidate = byId.get(observation.candidateId);
    if (!candidate || !observation.completed || observation.runtimeS <= 0) continue;
    const catalogCost = (candidate.nodes * candidate.priceUsdPerNodeHour * observation.runtimeS) / 3600;
    if (catalogCost <= 0) continue;
    // the run's billed overhead is priced apart (at each candidate's rate), not in its price per runtime
    const ratio = (observation.costUsd - (observation.overheadUsd ?? 0)) / catalogCost;
    if (ratio < plausibleFactor.min || ratio > plausibleFactor.max) continue;
    const list = ratios.get(candidate.id) ?? [];
    list.push(ratio);
    ratios.set(candidate.id, list);
  }
  const factors = new Map([...ratios].map(([id, list]) => [id, median(list) as number]));
  const byKind = new Map<string, number[]>();
  for (const [id, factor] of factors) {
    const kind = kindOf(byId.get(id) as Candidate);
    byKind.set(kind, [...(byKind.get(kind) ?? []), factor]);
  }
  return {
    factors,
    kindFactors: new Map([...byKind].map(([kind, list]) => [kind, median(list) as number])),
  };
}

/** The candidates priced as their runs showed: tried ones by their own factor, the others by their kind's. */
export function withObservedPrices(
  candidates: readonly Candidate[],
  calibration: PriceCalibration,
  kindOf: (candidate: Candidate) => string,
): Candidate[] {
  return candidates.map((candidate) => {
    const factor =
      calibration.factors.get(candidate.id) ?? calibration.kindFactors.get(kindOf(candidate)) ?? 1;
    return factor === 1
      ? candidate
      : { ...candidate, priceUsdPerNodeHour: candidate.priceUsdPerNodeHour * factor };
  });
}
