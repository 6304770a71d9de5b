/** Squared-exponential covariance of two points. */
export function squaredExponential(
  a: readonly number[],
  b: readonly number[],
  variance: number,
  lengthscale: number,
): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += ((a[i] as number) - (b[i] as number)) ** 2;
  return variance * Math.exp(-sum / (2 * lengthscale * lengthscale));
}
