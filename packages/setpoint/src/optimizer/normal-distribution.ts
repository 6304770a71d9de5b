/** Standard normal density. */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 on erf; absolute error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** z for which normalCdf(z) = p (Acklam's rational approximation). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

/**
 * Expected improvement of a log-normally distributed runtime t ~ exp(N(mu, sigma²)) whose cost is rate·t:
 * E[(bestCost − rate·t)·1{t ≤ maxRuntime}] — the SLA constraint and the cost share the same t, so the
 * constraint is applied inside the expectation rather than multiplied in as if it were independent.
 */
export function constrainedExpectedImprovement(
  mu: number,
  sigma: number,
  rate: number,
  bestCost: number,
  maxRuntime: number,
): number {
  const threshold = Math.min(maxRuntime, bestCost / rate);
  if (!(threshold > 0)) return 0;
  const logThreshold = Math.log(threshold);
  if (sigma < 1e-9) {
    const t = Math.exp(mu);
    return t <= threshold ? bestCost - rate * t : 0;
  }
  const z = (logThreshold - mu) / sigma;
  const value = bestCost * normalCdf(z) - rate * Math.exp(mu + (sigma * sigma) / 2) * normalCdf(z - sigma);
  return Math.max(0, value);
}
