import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { BasisRuntimeModel, gaussianLogDensity } from './basis-runtime-model.js';
import { shapeCoordinates } from './config-features.js';
import type { FleetPrior } from './fleet-prior.js';
import { squaredExponential } from './fleet-prior-math.js';
import { RuntimeMixture } from './runtime-mixture.js';
import type { Candidate, Observation } from './types.js';

export interface AnalogSettings {
  /** Prior sd of ln(runtime level) between a job and a fleet analog on the same hardware. */
  levelSd: number;
  /** Prior sd of the smooth difference between a job's surface and its analog's. */
  shapeSd: number;
  /** Prior weight of the generic basis model against all analogs together. */
  genericWeight: number;
}

export const defaultAnalogSettings: AnalogSettings = { levelSd: 0.5, shapeSd: 0.15, genericWeight: 0.2 };

const minimumWeight = 1e-4;

/**
 * Per-job runtime model: a Bayesian average of (a) the generic basis model with fleet-learned coefficient
 * priors and (b) one model per fleet job ("analog"): this job's ln(runtime) = that job's surface + a level
 * offset + a smooth difference. Each component's weight is its prior times the likelihood of this job's
 * runs, so after one run the jobs with a similar runtime on that hardware dominate, and after a few runs
 * the ones whose shape fits.
 */
export class RuntimeModel {
  readonly candidates: readonly Candidate[];
  private readonly basis: BasisRuntimeModel;
  private readonly surfaces: Float64Array[];
  private readonly analogFailures: Array<Array<number | undefined>>;
  private readonly shapes: Array<[number, number, number]>;
  private readonly settings: AnalogSettings;
  private readonly lengthscale: number;
  private readonly noiseVariance: number;
  private readonly index: Map<string, number>;

  constructor(prior: FleetPrior, candidates: readonly Candidate[], settings: Partial<AnalogSettings> = {}) {
    this.candidates = candidates;
    this.basis = new BasisRuntimeModel(prior, candidates);
    this.surfaces = prior.analogs.map((analog) => Float64Array.from(candidates, (c) => analog.logRuntime(c)));
    this.analogFailures = prior.analogs.map((analog) => candidates.map((c) => analog.failureRate(c)));
    this.shapes = candidates.map((candidate) => shapeCoordinates(candidate));
    this.settings = { ...defaultAnalogSettings, ...settings };
    this.lengthscale = prior.residualLengthscale;
    this.noiseVariance = prior.noiseVariance;
    this.index = new Map(candidates.map((candidate, i) => [candidate.id, i]));
  }

  indexOf(candidateId: string): number | undefined {
    return this.index.get(candidateId);
  }

  private analogKernel(i: number, j: number): number {
    const { levelSd, shapeSd } = this.settings;
    return (
      levelSd * levelSd +
      squaredExponential(this.shapes[i]!, this.shapes[j]!, shapeSd * shapeSd, this.lengthscale)
    );
  }

  predict(observations: readonly Observation[]): RuntimeMixture {
    const generic = this.basis.predict(observations);
    const train: number[] = [];
    const targets: number[] = [];
    for (const observation of observations) {
      const i = this.index.get(observation.candidateId);
      if (i === undefined || !observation.completed || !(observation.runtimeS > 0)) continue;
      train.push(i);
      targets.push(Math.log(observation.runtimeS));
    }
    const analogCount = this.surfaces.length;
    const logWeights = [Math.log(analogCount > 0 ? this.settings.genericWeight : 1) + generic.logEvidence];
    const k = this.candidates.length;
    const componentMus: Float64Array[] = [Float64Array.from(generic.predictions, (p) => p.mu)];
    const componentSigmas: Float64Array[] = [Float64Array.from(generic.predictions, (p) => p.sigma)];
    if (analogCount > 0) {
      const n = train.length;
      const analogPrior = Math.log((1 - this.settings.genericWeight) / analogCount);
      let sharedSigma: Float64Array;
      let crossWeights: Matrix | undefined;
      let cholesky: CholeskyDecomposition | undefined;
      if (n === 0) {
        sharedSigma = Float64Array.from(this.candidates, (_, i) =>
          Math.sqrt(this.analogKernel(i, i) + this.noiseVariance),
        );
      } else {
        const gram = new Matrix(n, n);
        for (let a = 0; a < n; a++) {
          for (let b = 0; b <= a; b++) {
            const value = this.analogKernel(train[a]!, train[b]!) + (a === b ? this.noiseVariance + 1e-8 : 0);
            gram.set(a, b, value);
            gram.set(b, a, value);
          }
        }
        cholesky = new CholeskyDecomposition(gram);
        const cross = new Matrix(n, k);
        for (let i = 0; i < k; i++)
          for (let a = 0; a < n; a++) cross.set(a, i, this.analogKernel(i, train[a]!));
        const solved = cholesky.solve(cross);
        crossWeights = cross;
        sharedSigma = Float64Array.from(this.candidates, (_, i) => {
          let reduction = 0;
          for (let a = 0; a < n; a++) reduction += cross.get(a, i) * solved.get(a, i);
          return Math.sqrt(Math.max(0, this.analogKernel(i, i) - reduction) + this.noiseVariance);
        });
      }
      for (const surface of this.surfaces) {
        if (n === 0 || !cholesky || !crossWeights) {
          logWeights.push(analogPrior);
          componentMus.push(surface);
          componentSigmas.push(sharedSigma);
          continue;
        }
        const residuals = Matrix.columnVector(targets.map((y, a) => y - (surface[train[a]!] as number)));
        const alpha = cholesky.solve(residuals);
        logWeights.push(analogPrior + gaussianLogDensity(cholesky, residuals, alpha));
        const mus = new Float64Array(k);
        for (let i = 0; i < k; i++) {
          let mu = surface[i] as number;
          for (let a = 0; a < n; a++) mu += crossWeights.get(a, i) * alpha.get(a, 0);
          mus[i] = mu;
        }
        componentMus.push(mus);
        componentSigmas.push(sharedSigma);
      }
    }
    const top = Math.max(...logWeights);
    const raw = logWeights.map((value) => Math.exp(value - top));
    const total = raw.reduce((sum, value) => sum + value, 0);
    const keep = raw
      .map((value, c) => ({ weight: value / total, c }))
      .filter((entry) => entry.weight >= minimumWeight);
    const kept = keep.reduce((sum, entry) => sum + entry.weight, 0);
    return new RuntimeMixture(
      keep.map((entry) => entry.weight / kept),
      keep.map((entry) => componentMus[entry.c]!),
      keep.map((entry) => componentSigmas[entry.c]!),
      keep.map((entry) => (entry.c === 0 ? undefined : this.analogFailures[entry.c - 1])),
    );
  }
}
