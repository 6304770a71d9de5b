import { mean, rounded } from '@setpoint/foundation/statistics';
import type { PredictionClaim } from 'setpoint/optimizer/search-policy';

/** One claim a policy made about a run, and what the run did. */
export interface ClaimOutcome {
  claim: PredictionClaim;
  metSla: boolean;
  /** The run completed with a runtime inside the claimed 80% interval. */
  insideInterval: boolean;
}

/**
 * Upper bounds of the reliability bins of P(runtime ≤ SLA). Claims cluster near the confidence a
 * recommendation needs, so the bins are finest there.
 */
export const reliabilityBinEdges = [0.5, 0.8, 0.9, 0.95, 0.99, 1] as const;

export interface ReliabilityBin {
  /** Claimed probabilities in [from, to) (the last bin includes 1). */
  from: number;
  to: number;
  cases: number;
  meanClaimed: number | null;
  observed: number | null;
}

export interface CalibrationReport {
  claims: number;
  bins: ReliabilityBin[];
  /** Share of runs inside their claimed 80% runtime interval (a failed run counts as outside). */
  intervalCoverage80: number | null;
  /** Observed share meeting the SLA minus the mean claimed probability, over every claim. */
  meanGap: number | null;
}

export function calibrationReport(outcomes: readonly ClaimOutcome[]): CalibrationReport {
  const bins: ReliabilityBin[] = [];
  let from = 0;
  for (const to of reliabilityBinEdges) {
    const inBin = outcomes.filter(
      ({ claim }) =>
        claim.probabilityMeetsSla >= from &&
        (claim.probabilityMeetsSla < to || (to === 1 && claim.probabilityMeetsSla <= 1)),
    );
    bins.push({
      from,
      to,
      cases: inBin.length,
      meanClaimed: rounded(mean(inBin.map(({ claim }) => claim.probabilityMeetsSla))),
      observed: rounded(mean(inBin.map(({ metSla }) => (metSla ? 1 : 0)))),
    });
    from = to;
  }
  const claimed = mean(outcomes.map(({ claim }) => claim.probabilityMeetsSla));
  const observed = mean(outcomes.map(({ metSla }) => (metSla ? 1 : 0)));
  return {
    claims: outcomes.length,
    bins,
    intervalCoverage80: rounded(mean(outcomes.map(({ insideInterval }) => (insideInterval ? 1 : 0)))),
    meanGap: observed === null || claimed === null ? null : rounded(observed - claimed),
  };
}
