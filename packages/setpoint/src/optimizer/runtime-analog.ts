import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import type { FeatureSpace } from './config-features.js';
import { shapeCoordinates } from './config-features.js';
import { squaredExponential } from './fleet-prior-math.js';
import type { Candidate } from './types.js';

/**
 * One fleet job's measured runtime surface: ln(runtime) over configurations, interpolated between its
 * measured configurations by its own basis fit plus a smooth residual. A new job borrows the *shape* of
 * the surfaces whose runtime level and measured points match its own (jobs that take as long on the
 * same hardware tend to be bound by the same resource and scale the same way).
 */
export class RuntimeAnalog {
  private readonly space: FeatureSpace;
  private readonly beta: readonly number[];
  private readonly shapes: Array<[number, number, number]>;
  private readonly weights: Float64Array;
  private readonly residualVariance: number;
  private readonly lengthscale: number;
  private readonly failures: Map<string, number>;

  constructor(
    space: FeatureSpace,
    beta: readonly number[],
    measured: ReadonlyArray<{ candidate: Candidate; logRuntime: number }>,
    failureRates: ReadonlyArray<{ candidate: Candidate; rate: number }>,
    residualVariance: number,
    lengthscale: number,
    noiseVariance: number,
  ) {
    this.space = space;
    this.beta = beta;
    this.residualVariance = residualVariance;
    this.lengthscale = lengthscale;
    this.shapes = measured.map((entry) => shapeCoordinates(entry.candidate));
    const n = measured.length;
    const gram = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const value =
          squaredExponential(this.shapes[i]!, this.shapes[j]!, residualVariance, lengthscale) +
          (i === j ? noiseVariance + 1e-8 : 0);
        gram.set(i, j, value);
        gram.set(j, i, value);
      }
    }
    const residuals = Matrix.columnVector(
      measured.map((entry) => entry.logRuntime - this.basisValue(entry.candidate)),
    );
    this.weights =
      n > 0
        ? Float64Array.from(new CholeskyDecomposition(gram).solve(residuals).getColumn(0))
        : new Float64Array();
    this.failures = new Map(failureRates.map((entry) => [configurationKey(entry.candidate), entry.rate]));
  }

  private basisValue(candidate: Candidate): number {
    const row = this.space.basis(candidate);
    let sum = 0;
    for (let i = 0; i < row.length; i++) sum += (row[i] as number) * (this.beta[i] as number);
    return sum;
  }

  /** Interpolated ln(runtime) of this fleet job on a configuration. */
  logRuntime(candidate: Candidate): number {
    const shape = shapeCoordinates(candidate);
    let value = this.basisValue(candidate);
    for (let i = 0; i < this.shapes.length; i++) {
      value +=
        (this.weights[i] as number) *
        squaredExponential(shape, this.shapes[i]!, this.residualVariance, this.lengthscale);
    }
    return value;
  }

  /** Failure rate this fleet job showed on the same instance type and node count, if it ran there. */
  failureRate(candidate: Candidate): number | undefined {
    return this.failures.get(configurationKey(candidate));
  }
}

function configurationKey(candidate: Candidate): string {
  return `${candidate.instanceType}\u0000${candidate.nodes}`;
}
