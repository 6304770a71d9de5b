import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { instanceFamily, shapeCoordinates } from './config-features.js';
import type { FleetPrior } from './fleet-prior.js';
import { squaredExponential } from './fleet-prior-math.js';
import type { Candidate, Observation } from './types.js';

/** Predictive distribution of ln(runtime seconds) of the next run on a candidate. */
export interface RuntimePrediction {
  mu: number;
  sigma: number;
}

const newFamilyVariance = 0.3 ** 2;

/**
 * The generic component: ln(runtime) = basis(config)·θ + smooth residual + noise, with θ drawn from the
 * fleet prior. Written as one Gaussian process (the basis contributes φᵀΣφ' to the kernel) so a single
 * cold-start run already moves every prediction through the prior's correlations, nearby configurations
 * stay correlated through the residual, and predictions at tried configurations collapse to what was seen.
 */
export class BasisRuntimeModel {
  readonly candidates: readonly Candidate[];
  private readonly priorMean: Float64Array;
  private readonly basisRows: Float64Array[];
  private readonly weightedRows: Float64Array[];
  private readonly shapes: Array<[number, number, number]>;
  private readonly residualVariance: number;
  private readonly residualLengthscale: number;
  private readonly noiseVariance: number;
  private readonly index: Map<string, number>;

  constructor(prior: FleetPrior, candidates: readonly Candidate[]) {
    this.candidates = candidates;
    const space = prior.space.withFamilies(
      candidates.map((candidate) => instanceFamily(candidate.instanceType)),
    );
    const d = space.dimension;
    const meanVector = new Float64Array(d);
    const covariance = Array.from({ length: d }, () => new Float64Array(d));
    const priorIndex = space.names.map((name) => prior.space.names.indexOf(name));
    for (let a = 0; a < d; a++) {
      const pa = priorIndex[a] as number;
      meanVector[a] = pa >= 0 ? (prior.mean[pa] ?? 0) : 0;
      for (let b = 0; b < d; b++) {
        const pb = priorIndex[b] as number;
        covariance[a]![b] =
          pa >= 0 && pb >= 0 ? (prior.covariance[pa]?.[pb] ?? 0) : a === b ? newFamilyVariance : 0;
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
    this.shapes = candidates.map((candidate) => shapeCoordinates(candidate));
    this.residualVariance = prior.residualVariance;
    this.residualLengthscale = prior.residualLengthscale;
    this.noiseVariance = prior.noiseVariance;
    this.index = new Map(candidates.map((candidate, i) => [candidate.id, i]));
  }

  indexOf(candidateId: string): number | undefined {
    return this.index.get(candidateId);
  }

  private kernel(i: number, j: number): number {
    return (
      dot(this.weightedRows[i]!, this.basisRows[j]!) +
      squaredExponential(this.shapes[i]!, this.shapes[j]!, this.residualVariance, this.residualLengthscale)
    );
  }

  /** Predictions for every candidate, in catalog order, given the job's completed runs, and their log evidence. */
  predict(observations: readonly Observation[]): { predictions: RuntimePrediction[]; logEvidence: number } {
    const train: number[] = [];
    const targets: number[] = [];
    for (const observation of observations) {
      const i = this.index.get(observation.candidateId);
      if (i === undefined || !observation.completed || !(observation.runtimeS > 0)) continue;
      train.push(i);
      targets.push(Math.log(observation.runtimeS));
    }
    const n = train.length;
    if (n === 0) {
      const predictions = this.candidates.map((_, i) => ({
        mu: this.priorMean[i] as number,
        sigma: Math.sqrt(this.kernel(i, i) + this.noiseVariance),
      }));
      return { predictions, logEvidence: 0 };
    }
    const gram = new Matrix(n, n);
    for (let a = 0; a < n; a++) {
      for (let b = 0; b <= a; b++) {
        const value = this.kernel(train[a]!, train[b]!) + (a === b ? this.noiseVariance + 1e-8 : 0);
        gram.set(a, b, value);
        gram.set(b, a, value);
      }
    }
    const cholesky = new CholeskyDecomposition(gram);
    const residuals = Matrix.columnVector(targets.map((y, a) => y - (this.priorMean[train[a]!] as number)));
    const alpha = cholesky.solve(residuals);
    const crossAll = new Matrix(n, this.candidates.length);
    for (let i = 0; i < this.candidates.length; i++) {
      for (let a = 0; a < n; a++) crossAll.set(a, i, this.kernel(i, train[a]!));
    }
    const solved = cholesky.solve(crossAll);
    const logEvidence = gaussianLogDensity(cholesky, residuals, alpha);
    const predictions = this.candidates.map((_, i) => {
      let mu = this.priorMean[i] as number;
      let reduction = 0;
      for (let a = 0; a < n; a++) {
        const cross = crossAll.get(a, i);
        mu += cross * alpha.get(a, 0);
        reduction += cross * solved.get(a, i);
      }
      const latent = Math.max(0, this.kernel(i, i) - reduction);
      return { mu, sigma: Math.sqrt(latent + this.noiseVariance) };
    });
    return { predictions, logEvidence };
  }
}

/** ln N(r; 0, K) from K's Cholesky factor and α = K⁻¹r. */
export function gaussianLogDensity(
  cholesky: CholeskyDecomposition,
  residuals: Matrix,
  alpha: Matrix,
): number {
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
