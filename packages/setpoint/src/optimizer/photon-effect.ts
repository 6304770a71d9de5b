import type { Candidate } from './types.js';

/**
 * Variance of one job's Photon effect on ln(runtime), shared by every Photon family: what a Photon run on
 * one node family says of Photon carries to the Photon candidates of the others (each Photon family also
 * keeps its own family effect). Its spread is the generic Photon trial prior's (10th–90th percentile speed-up
 * 1.0–2.5×, so a standard deviation of ln(2.5) ÷ 2.56); its mean is 0, as the fleet's family effects say
 * nothing of Photon yet.
 */
export const photonEffectVariance = (Math.log(2.5) / 2.56) ** 2;

/** Per candidate, the variance of the shared Photon effect it carries (0 on the standard engine). */
export function photonEffectVariances(candidates: readonly Candidate[], scale = 1): Float64Array {
  return Float64Array.from(candidates, (candidate) =>
    candidate.engine === 'photon' ? photonEffectVariance * scale : 0,
  );
}

/** The covariance the shared Photon effect adds between candidates i and j. */
export function photonCovariance(variances: Float64Array, i: number, j: number): number {
  return Math.sqrt((variances[i] as number) * (variances[j] as number));
}
