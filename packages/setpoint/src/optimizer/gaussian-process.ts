import { CholeskyDecomposition, Matrix } from 'ml-matrix';

/** Matérn 5/2 covariance of two points at distance r / lengthscale = scaled. */
export function matern52(scaled: number): number {
  const root5 = Math.sqrt(5) * scaled;
  return (1 + root5 + (5 * scaled * scaled) / 3) * Math.exp(-root5);
}

export interface GaussianProcessFit {
  predict(point: readonly number[]): { mean: number; sd: number };
  logMarginalLikelihood: number;
}

/**
 * Zero-mean GP regression on standardized targets with a Matérn 5/2 kernel (unit signal variance)
 * and Gaussian noise; prediction is returned in the targets' original units.
 */
export function fitGaussianProcess(
  points: readonly (readonly number[])[],
  targets: readonly number[],
  lengthscale: number,
  noiseVariance: number,
): GaussianProcessFit {
  const n = targets.length;
  const center = targets.reduce((sum, value) => sum + value, 0) / n;
  const spread = Math.sqrt(targets.reduce((sum, value) => sum + (value - center) ** 2, 0) / n) || 1;
  const y = Matrix.columnVector(targets.map((value) => (value - center) / spread));
  const kernel = (a: readonly number[], b: readonly number[]) => {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += ((a[i] as number) - (b[i] as number)) ** 2;
    return matern52(Math.sqrt(sum) / lengthscale);
  };
  const gram = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++)
      gram.set(i, j, kernel(points[i]!, points[j]!) + (i === j ? noiseVariance + 1e-8 : 0));
  }
  const cholesky = new CholeskyDecomposition(gram);
  const alpha = cholesky.solve(y);
  const lower = cholesky.lowerTriangularMatrix.to2DArray();
  let logDet = 0;
  for (let i = 0; i < n; i++) logDet += 2 * Math.log(lower[i]![i]!);
  let quadratic = 0;
  for (let i = 0; i < n; i++) quadratic += y.get(i, 0) * alpha.get(i, 0);
  const weights = alpha.getColumn(0);
  const forward = new Float64Array(n);
  return {
    logMarginalLikelihood: -0.5 * quadratic - 0.5 * logDet - (n / 2) * Math.log(2 * Math.PI),
    predict(point) {
      let mean = 0;
      let reduction = 0;
      for (let i = 0; i < n; i++) {
        const cross = kernel(point, points[i]!);
        mean += cross * (weights[i] as number);
        const row = lower[i]!;
        let value = cross;
        for (let j = 0; j < i; j++) value -= (row[j] as number) * (forward[j] as number);
        forward[i] = value / (row[i] as number);
        reduction += (forward[i] as number) ** 2;
      }
      const variance = Math.max(1e-12, 1 - reduction);
      return { mean: center + spread * mean, sd: spread * Math.sqrt(variance) };
    },
  };
}

/** Fits each (lengthscale, noise) pair and keeps the one with the highest marginal likelihood. */
export function fitGaussianProcessByEvidence(
  points: readonly (readonly number[])[],
  targets: readonly number[],
  lengthscales: readonly number[],
  noiseVariances: readonly number[],
): GaussianProcessFit {
  let best: GaussianProcessFit | undefined;
  for (const lengthscale of lengthscales) {
    for (const noise of noiseVariances) {
      const fit = fitGaussianProcess(points, targets, lengthscale, noise);
      if (!best || fit.logMarginalLikelihood > best.logMarginalLikelihood) best = fit;
    }
  }
  if (!best)
    throw new RangeError('fitGaussianProcessByEvidence needs at least one lengthscale and noise level');
  return best;
}
