import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { instanceFamily } from './config-features.js';
import { type FleetPrior, familyPriorOf } from './fleet-prior.js';
import type { ObservedConfiguration } from './observed-configurations.js';
import { photonCovariance, photonEffectVariances } from './photon-effect.js';
import { type ConfigPoint, configPoint, residualCorrelation } from './residual-kernel.js';
import type { Candidate } from './types.js';

/** Predictive distribution of ln(runtime seconds) of the next run on a candidate. */
export interface RuntimePrediction {
  mu: number;
  sigma: number;
}

export interface BasisModelOptions {
  /**
   * Multiplies the coefficient covariance and the residual variance: the "unlike the fleet" variant a job
   * falls back on when no fleet-shaped model explains its runs.
   */
  breadth?: number;
}

/**
 * The generic component: ln(runtime) = basis(config)·θ + smooth residual + noise, with θ drawn from the
 * fleet prior. Written as one Gaussian process (the basis contributes φᵀΣφ' to the kernel) so a single
 * cold-start run already moves every prediction through the prior's correlations, nearby configurations
 * stay correlated through the residual, and predictions at tried configurations collapse to what was seen.
 * Families the fleet never ran enter with the effect their traits predict and the traits' uncertainty.
 */
export class BasisRuntimeModel {
  readonly candidates: readonly Candidate[];
  private readonly priorMean: Float64Array;
  private readonly basisRows: Float64Array[];
  private readonly weightedRows: Float64Array[];
  private readonly points: ConfigPoint[];
  private readonly residualVariance: number;
  private readonly prior: FleetPrior;
  /** Per candidate: the variance of the job's Photon effect it carries (0 on the standard engine). */
  private readonly photonVariance: Float64Array;

  constructor(prior: FleetPrior, candidates: readonly Candidate[], options: BasisModelOptions = {}) {
    const breadth = options.breadth ?? 1;
    this.prior = prior;
    this.candidates = candidates;
    const space = prior.space.withFamilies(candidates.map((candidate) => instanceFamily(candidate)));
    const d = space.dimension;
    const meanVector = new Float64Array(d);
    const covariance = Array.from({ length: d }, () => new Float64Array(d));
    const priorIndex = space.names.map((name) => prior.space.names.indexOf(name));
    const exampleOf = new Map(candidates.map((candidate) => [instanceFamily(candidate), candidate]));
    for (let a = 0; a < d; a++) {
      const pa = priorIndex[a] as number;
      const name = space.names[a] as string;
      const newFamily = pa < 0 && name.startsWith('family:');
      const familyPrior = newFamily
        ? familyPriorOf(prior, exampleOf.get(name.slice('family:'.length)) as Candidate)
        : undefined;
      meanVector[a] = pa >= 0 ? (prior.mean[pa] ?? 0) : (familyPrior?.mean ?? 0);
      for (let b = 0; b < d; b++) {
        const pb = priorIndex[b] as number;
        const shared = pa >= 0 && pb >= 0 ? (prior.covariance[pa]?.[pb] ?? 0) : 0;
        const own = a === b && pa < 0 ? (familyPrior?.variance ?? prior.familyTraits.variance) : 0;
        covariance[a]![b] = (shared + own) * (a === 0 && b === 0 ? 1 : breadth);
      }
    }
    this.basisRows = candidates.map((candidate) => space.basis(candidate));
    this.weightedRows = this.basisRows.map((row) => {
      const out = new Float64Array(d);
      for (let a = 0; a < d; a++) {
        let sum = 0;
        for (let b = 0; b < d; b++) sum += (row[b] as number) * (covariance[b]![a] as number);
        out[a] = sum;
      }
      return out;
    });
    this.priorMean = Float64Array.from(this.basisRows, (row) => dot(row, meanVector));
    this.points = candidates.map((candidate) => configPoint(candidate));
    this.residualVariance = prior.residualVariance * breadth;
    this.photonVariance = photonEffectVariances(candidates, breadth);
  }

  private kernel(i: number, j: number): number {
    return (
      dot(this.weightedRows[i]!, this.basisRows[j]!) +
      this.residualVariance * residualCorrelation(this.points[i]!, this.points[j]!, this.prior.kernel) +
      photonCovariance(this.photonVariance, i, j)
    );
  }

  /**
   * Predictions for every candidate, in catalog order, given the job's runs grouped by configuration and
   * a noise variance of one run, and the log evidence of the configuration means.
   */
  predict(
    observed: readonly ObservedConfiguration[],
    noiseVariance: number,
  ): { predictions: RuntimePrediction[]; logEvidence: number } {
    const n = observed.length;
    if (n === 0) {
      const predictions = this.candidates.map((_, i) => ({
        mu: this.priorMean[i] as number,
        sigma: Math.sqrt(this.kernel(i, i) + noiseVariance),
      }));
      return { predictions, logEvidence: 0 };
    }
    const gram = new Matrix(n, n);
    for (let a = 0; a < n; a++) {
      for (let b = 0; b <= a; b++) {
        const value =
          this.kernel(observed[a]!.index, observed[b]!.index) +
          (a === b ? noiseVariance / observed[a]!.runs + 1e-8 : 0);
        gram.set(a, b, value);
        gram.set(b, a, value);
      }
    }
    const cholesky = new CholeskyDecomposition(gram);
    const residuals = Matrix.columnVector(
      observed.map((entry) => entry.meanLog - (this.priorMean[entry.index] as number)),
    );
    const alpha = cholesky.solve(residuals);
    const cross = new Matrix(n, this.candidates.length);
    for (let i = 0; i < this.candidates.length; i++) {
      for (let a = 0; a < n; a++) cross.set(a, i, this.kernel(i, observed[a]!.index));
    }
    const solved = cholesky.solve(cross);
    const logEvidence = gaussianLogDensity(cholesky, residuals, alpha);
    const predictions = this.candidates.map((_, i) => {
      let mu = this.priorMean[i] as number;
      let reduction = 0;
      for (let a = 0; a < n; a++) {
        const value = cross.get(a, i);
        mu += value * alpha.get(a, 0);
        reduction += value * solved.get(a, i);
      }
      const latent = Math.max(0, this.kernel(i, i) - reduction);
      return { mu, sigma: Math.sqrt(latent + noiseVariance) };
    });
    return { predictions, logEvidence };
  }
}

/** ln N(r; 0, K) from K's Cholesky factor and α = K⁻¹r. */
function gaussianLogDensity(cholesky: CholeskyDecomposition, residuals: Matrix, alpha: Matrix): number {
  const lower = cholesky.lowerTriangularMatrix;
  const n = residuals.rows;
  let value = -0.5 * n * Math.log(2 * Math.PI);
  for (let i = 0; i < n; i++)
    value -= Math.log(lower.get(i, i)) + 0.5 * residuals.get(i, 0) * alpha.get(i, 0);
  return value;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
