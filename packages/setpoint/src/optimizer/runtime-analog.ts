import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { FeatureSpace, totalCores } from './config-features.js';
import { configurationName } from './configuration-name.js';
import { evenlySpaced } from './evenly-spaced.js';
import {
  type ConfigPoint,
  configPoint,
  type ResidualKernelShape,
  residualCorrelation,
} from './residual-kernel.js';
import type { Candidate } from './types.js';

/** One measured configuration of a fleet job: mean ln(runtime) of its completed runs and how many there were. */
export interface MeasuredPoint {
  candidate: Candidate;
  logRuntime: number;
  runs: number;
}

export interface AnalogParts {
  space: FeatureSpace;
  /** The job's basis coefficients (families it never ran carry the fleet's estimate). */
  beta: readonly number[];
  measured: readonly MeasuredPoint[];
  failureRates: ReadonlyArray<{ candidate: Candidate; rate: number }>;
  residualVariance: number;
  kernel: ResidualKernelShape;
  /** Run-to-run noise variance of this job, when it ran some configuration more than once. */
  noiseVariance: number | undefined;
  /** Noise used to interpolate between measured points when the job's own noise is unknown. */
  fallbackNoiseVariance: number;
  /** This analog's share of the analogs' prior weight (the shares of a fleet sum to 1). */
  priorWeight: number;
  /** Which job the analog is, as an id ("scout:join-spark-huge", "project:prj_…"). */
  source: string;
  /** The analog as a person knows it, for explanations (a project's name); the source when absent. */
  label?: string;
  /**
   * The job being optimized itself (its run's what-if replay), not another job: its data size is the job's
   * own, so it is never read at another data scale.
   */
  ownJob?: boolean;
}

/**
 * One fleet job's measured runtime surface: ln(runtime) over configurations, interpolated between its
 * measured configurations by its own basis fit plus a smooth residual. A new job borrows the *shape* of
 * the surfaces whose runtime level and measured points match its own (jobs that take as long on the
 * same hardware tend to be bound by the same resource and scale the same way). The analog also knows
 * where it is blind: the families it never ran, for which it only repeats the fleet's estimate.
 */
export class RuntimeAnalog {
  private readonly space: FeatureSpace;
  private readonly beta: readonly number[];
  private readonly points: ConfigPoint[];
  private readonly weights: Float64Array;
  private readonly residualVariance: number;
  private readonly kernel: ResidualKernelShape;
  private readonly failures: Map<string, number>;
  /** Measured configurations answer with their own mean; the interpolation serves the rest. */
  private readonly measuredValues: Map<string, number>;
  /** Families this job ran: predictions elsewhere are the fleet's guess, not the job's measurement. */
  readonly measuredFamilies: ReadonlySet<string>;
  /** log2 of the fewest and most cores (whole cluster) it ran: beyond them its surface is extrapolated. */
  readonly measuredLog2Cores: readonly [number, number];
  readonly ownJob: boolean;
  readonly noiseVariance: number | undefined;
  readonly priorWeight: number;
  readonly source: string;
  readonly label: string;

  constructor(parts: AnalogParts) {
    this.priorWeight = parts.priorWeight;
    this.source = parts.source;
    this.label = parts.label ?? parts.source;
    this.space = parts.space;
    this.beta = parts.beta;
    this.residualVariance = parts.residualVariance;
    this.kernel = parts.kernel;
    this.noiseVariance = parts.noiseVariance;
    this.measuredFamilies = new Set(parts.measured.map((entry) => configPoint(entry.candidate).family));
    const cores = parts.measured.map((entry) => Math.log2(totalCores(entry.candidate)));
    this.measuredLog2Cores = cores.length > 0 ? [Math.min(...cores), Math.max(...cores)] : [0, 0];
    this.ownJob = parts.ownJob === true;
    this.measuredValues = new Map(
      parts.measured.map((entry) => [configurationKey(entry.candidate), entry.logRuntime]),
    );
    // The interpolation is a GP solve, cubic in its points: a large sweep is thinned evenly for it.
    const support = evenlySpaced(parts.measured, interpolationPoints);
    this.points = support.map((entry) => configPoint(entry.candidate));
    const noise = parts.noiseVariance ?? parts.fallbackNoiseVariance;
    const n = support.length;
    const gram = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const value =
          this.residualVariance * residualCorrelation(this.points[i]!, this.points[j]!, this.kernel) +
          (i === j ? noise / (support[i]?.runs ?? 1) + 1e-8 : 0);
        gram.set(i, j, value);
        gram.set(j, i, value);
      }
    }
    const residuals = Matrix.columnVector(
      support.map((entry) => entry.logRuntime - this.basisValue(entry.candidate)),
    );
    this.weights =
      n > 0
        ? Float64Array.from(new CholeskyDecomposition(gram).solve(residuals).getColumn(0))
        : new Float64Array();
    this.failures = new Map(
      parts.failureRates.map((entry) => [configurationKey(entry.candidate), entry.rate]),
    );
  }

  /**
   * An analog again after a structured clone (a worker thread posted it back): the clone holds every
   * field, fitted weights included, but not the class; nothing is refitted.
   */
  static revive(clone: RuntimeAnalog): RuntimeAnalog {
    const analog = Object.setPrototypeOf(clone, RuntimeAnalog.prototype) as RuntimeAnalog;
    const fields = analog as unknown as { space: FeatureSpace };
    fields.space = FeatureSpace.revive(fields.space);
    return analog;
  }

  private basisValue(candidate: Candidate): number {
    return this.space.dotBasis(candidate, this.beta);
  }

  /** Interpolated ln(runtime) of this fleet job on a configuration. */
  logRuntime(candidate: Candidate): number {
    const measured = this.measuredValues.get(configurationKey(candidate));
    if (measured !== undefined) return measured;
    const point = configPoint(candidate);
    let value = this.basisValue(candidate);
    for (let i = 0; i < this.points.length; i++) {
      value +=
        (this.weights[i] as number) *
        this.residualVariance *
        residualCorrelation(point, this.points[i]!, this.kernel);
    }
    return value;
  }

  /** Failure rate this fleet job showed on the same instance type and node count, if it ran there. */
  failureRate(candidate: Candidate): number | undefined {
    return this.failures.get(configurationKey(candidate));
  }
}

const interpolationPoints = 100;

function configurationKey(candidate: Candidate): string {
  return `${configurationName(candidate)}\u0000${candidate.nodes}`;
}
