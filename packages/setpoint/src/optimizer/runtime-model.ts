import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { BasisRuntimeModel, gaussianLogDensity } from './basis-runtime-model.js';
import { instanceFamily } from './config-features.js';
import { type FleetPrior, familyPriorOf } from './fleet-prior.js';
import { nearestNoiseLevel } from './noise-levels.js';
import {
  type ObservedConfiguration,
  observedConfigurations,
  type SummarizedConfiguration,
  scatterLogLikelihood,
} from './observed-configurations.js';
import { photonCovariance, photonEffectVariances } from './photon-effect.js';
import { configurationDistance, spreadScaleFor } from './predictive-calibration.js';
import { type ConfigPoint, configPoint, residualCorrelation } from './residual-kernel.js';
import type { RuntimeAnalog } from './runtime-analog.js';
import { RuntimeMixture } from './runtime-mixture.js';
import type { Candidate, Observation } from './types.js';

export interface AnalogSettings {
  /** Prior sd of ln(runtime level) between a job and a fleet analog on the same hardware. */
  levelSd: number;
  /** Prior sd of the smooth difference between a job's surface and its analog's. */
  shapeSd: number;
  /** Prior weight of the generic basis model against all analogs together. */
  genericWeight: number;
  /**
   * Share of the generic weight given to its broad variant (four times the fleet's coefficient and
   * residual variance): a job unlike every fleet job is explained by it, and its predictions widen.
   */
  broadShare: number;
}

export const defaultAnalogSettings: AnalogSettings = {
  levelSd: 0.5,
  shapeSd: 0.15,
  genericWeight: 0.2,
  broadShare: 0.25,
};

const minimumWeight = 1e-4;
const broadBreadth = 4;

interface Component {
  label: string;
  logWeight: number;
  /** Builds the predictions only for components that survive pruning (most analogs do not). */
  predictions: () => { mus: Float64Array; sigmas: Float64Array };
  failures: () => ReadonlyArray<number | undefined> | undefined;
}

/**
 * Per-job runtime model: a Bayesian average of (a) the generic basis model with fleet-learned coefficient
 * priors (and its broad variant) and (b) one model per fleet job ("analog"): this job's ln(runtime) =
 * that job's surface + a level offset + a smooth difference. Each is taken at every noise level the fleet
 * shows (an analog with repeats at its own), and each component's weight is its prior times the
 * likelihood of this job's runs: after one run the jobs with a similar runtime on that hardware
 * dominate, after a few runs the ones whose shape fits, and repeats settle how noisy the job is.
 */
export class RuntimeModel {
  readonly candidates: readonly Candidate[];
  private readonly prior: FleetPrior;
  private readonly generic: BasisRuntimeModel;
  private readonly broad: BasisRuntimeModel;
  /**
   * Each analog's ln(runtime) per candidate, computed on first use: a component's weight needs only the
   * configurations this job ran, and most analogs are pruned before their whole surface is wanted.
   */
  private readonly surfaces: Float64Array[];
  private readonly families: string[];
  private readonly familyVariance: Map<string, number>;
  /** Noise level an analog is pinned to (its own repeats), or undefined to take every level. */
  private readonly analogLevels: Array<number | undefined>;
  private readonly points: ConfigPoint[];
  /** Per candidate: the variance of the job's shared Photon effect it carries (0 on the standard engine). */
  private readonly photonVariance: Float64Array;
  /** Each analog's share of the analogs' prior weight (the organization's own jobs weigh more). */
  private readonly priorWeights: number[];
  private readonly settings: AnalogSettings;
  private readonly index: Map<string, number>;

  constructor(prior: FleetPrior, candidates: readonly Candidate[], settings: Partial<AnalogSettings> = {}) {
    this.prior = prior;
    this.candidates = candidates;
    this.settings = { ...defaultAnalogSettings, ...settings };
    this.generic = new BasisRuntimeModel(prior, candidates);
    this.broad = new BasisRuntimeModel(prior, candidates, { breadth: broadBreadth });
    this.families = candidates.map((candidate) => instanceFamily(candidate.instanceType));
    this.familyVariance = new Map(
      candidates.map((candidate, i) => [
        this.families[i] as string,
        familyPriorOf(prior, candidate.instanceType).variance,
      ]),
    );
    this.surfaces = prior.analogs.map(() => new Float64Array(candidates.length).fill(Number.NaN));
    this.analogLevels = prior.analogs.map((analog) =>
      analog.noiseVariance === undefined ? undefined : nearestNoiseLevel(prior.noise, analog.noiseVariance),
    );
    this.points = candidates.map((candidate) => configPoint(candidate));
    this.photonVariance = photonEffectVariances(candidates);
    const totalWeight = prior.analogs.reduce((sum, analog) => sum + analog.priorWeight, 0);
    this.priorWeights = prior.analogs.map((analog) => analog.priorWeight / (totalWeight || 1));
    this.index = new Map(candidates.map((candidate, i) => [candidate.id, i]));
  }

  indexOf(candidateId: string): number | undefined {
    return this.index.get(candidateId);
  }

  /** Analog `a`'s ln(runtime) on candidate `i`. */
  private surfaceAt(a: number, i: number): number {
    const surface = this.surfaces[a] as Float64Array;
    let value = surface[i] as number;
    if (Number.isNaN(value)) {
      value = (this.prior.analogs[a] as RuntimeAnalog).logRuntime(this.candidates[i] as Candidate);
      surface[i] = value;
    }
    return value;
  }

  private wholeSurface(a: number): Float64Array {
    for (let i = 0; i < this.candidates.length; i++) this.surfaceAt(a, i);
    return this.surfaces[a] as Float64Array;
  }

  /** Extra variance of analog `a`'s prediction on a family it never ran (0 where it did). */
  private blindVariance(a: number): Float64Array {
    const measured = (this.prior.analogs[a] as RuntimeAnalog).measuredFamilies;
    return Float64Array.from(this.families, (family) =>
      measured.has(family) ? 0 : (this.familyVariance.get(family) ?? 0),
    );
  }

  private analogFailures(a: number): Array<number | undefined> {
    const analog = this.prior.analogs[a] as RuntimeAnalog;
    return this.candidates.map((candidate) => analog.failureRate(candidate));
  }

  private analogKernel(i: number, j: number): number {
    const { levelSd, shapeSd } = this.settings;
    return (
      levelSd * levelSd +
      shapeSd * shapeSd * residualCorrelation(this.points[i]!, this.points[j]!, this.prior.kernel) +
      photonCovariance(this.photonVariance, i, j)
    );
  }

  predict(
    observations: readonly Observation[],
    summarized: readonly SummarizedConfiguration[] = [],
  ): RuntimeMixture {
    const observed = observedConfigurations(observations, (id) => this.index.get(id), summarized);
    const { noise } = this.prior;
    const analogCount = this.surfaces.length;
    const genericShare = analogCount > 0 ? this.settings.genericWeight : 1;
    const components: Component[] = [];
    noise.variances.forEach((noiseVariance, level) => {
      const levelWeight = noise.weights[level] as number;
      const scatter = scatterLogLikelihood(observed, noiseVariance);
      for (const [model, share, label] of [
        [this.generic, 1 - this.settings.broadShare, 'fleet model'],
        [this.broad, this.settings.broadShare, 'fleet model (broad)'],
      ] as const) {
        const fit = model.predict(observed, noiseVariance);
        const predictions = {
          mus: Float64Array.from(fit.predictions, (p) => p.mu),
          sigmas: Float64Array.from(fit.predictions, (p) => p.sigma),
        };
        components.push({
          label,
          logWeight: Math.log(genericShare * share * levelWeight) + fit.logEvidence + scatter,
          predictions: () => predictions,
          failures: () => undefined,
        });
      }
      if (analogCount > 0) components.push(...this.analogComponents(observed, level, noiseVariance, scatter));
    });
    const top = Math.max(...components.map((component) => component.logWeight));
    const raw = components.map((component) => Math.exp(component.logWeight - top));
    const total = raw.reduce((sum, value) => sum + value, 0);
    const kept = components
      .map((component, c) => ({ component, weight: (raw[c] as number) / total }))
      .filter((entry) => entry.weight >= minimumWeight);
    const keptTotal = kept.reduce((sum, entry) => sum + entry.weight, 0);
    const ran = observed.map((entry) => this.candidates[entry.index] as Candidate);
    const scales = Float64Array.from(this.candidates, (candidate) =>
      ran.length === 0
        ? 1
        : spreadScaleFor(this.prior.calibration, ran.length, configurationDistance(candidate, ran)),
    );
    const built = kept.map((entry) => entry.component.predictions());
    return new RuntimeMixture(
      kept.map((entry) => entry.weight / keptTotal),
      built.map((entry) => entry.mus),
      built.map((entry) => Float64Array.from(entry.sigmas, (sigma, i) => sigma * (scales[i] as number))),
      kept.map((entry) => entry.component.failures()),
      kept.map((entry) => entry.component.label),
    );
  }

  /** Every analog taken at one noise level: the ones pinned elsewhere are skipped. */
  private analogComponents(
    observed: readonly ObservedConfiguration[],
    level: number,
    noiseVariance: number,
    scatter: number,
  ): Component[] {
    const k = this.candidates.length;
    const n = observed.length;
    const analogShare = 1 - this.settings.genericWeight;
    const levelWeight = this.prior.noise.weights[level] as number;
    const members = this.analogLevels
      .map((pinned, a) => ({ a, weight: pinned === undefined ? levelWeight : pinned === level ? 1 : 0 }))
      .filter((member) => member.weight > 0);
    if (members.length === 0) return [];
    let latent: Float64Array;
    let cross: Matrix | undefined;
    let cholesky: CholeskyDecomposition | undefined;
    if (n === 0) {
      latent = Float64Array.from(this.candidates, (_, i) => this.analogKernel(i, i));
    } else {
      const gram = new Matrix(n, n);
      for (let a = 0; a < n; a++) {
        for (let b = 0; b <= a; b++) {
          const value =
            this.analogKernel(observed[a]!.index, observed[b]!.index) +
            (a === b ? noiseVariance / observed[a]!.runs + 1e-8 : 0);
          gram.set(a, b, value);
          gram.set(b, a, value);
        }
      }
      cholesky = new CholeskyDecomposition(gram);
      const crossMatrix = new Matrix(n, k);
      for (let i = 0; i < k; i++)
        for (let a = 0; a < n; a++) crossMatrix.set(a, i, this.analogKernel(i, observed[a]!.index));
      const solved = cholesky.solve(crossMatrix);
      cross = crossMatrix;
      latent = Float64Array.from(this.candidates, (_, i) => {
        let reduction = 0;
        for (let a = 0; a < n; a++) reduction += crossMatrix.get(a, i) * solved.get(a, i);
        return Math.max(0, this.analogKernel(i, i) - reduction);
      });
    }
    return members.map(({ a, weight }) => {
      const sigmas = () => {
        const blind = this.blindVariance(a);
        return Float64Array.from(latent, (value, i) =>
          Math.sqrt(value + (blind[i] as number) + noiseVariance),
        );
      };
      const failures = () => this.analogFailures(a);
      if (n === 0 || !cholesky || !cross) {
        return {
          label: this.prior.analogs[a]?.source ?? `fleet job ${a + 1}`,
          logWeight: Math.log(analogShare * this.priorWeights[a]! * weight),
          predictions: () => ({ mus: this.wholeSurface(a), sigmas: sigmas() }),
          failures,
        };
      }
      const residuals = Matrix.columnVector(
        observed.map((entry) => entry.meanLog - this.surfaceAt(a, entry.index)),
      );
      const alpha = cholesky.solve(residuals);
      const crossMatrix = cross;
      return {
        label: this.prior.analogs[a]?.source ?? `fleet job ${a + 1}`,
        logWeight:
          Math.log(analogShare * this.priorWeights[a]! * weight) +
          gaussianLogDensity(cholesky, residuals, alpha) +
          scatter,
        predictions: () => {
          const surface = this.wholeSurface(a);
          const mus = new Float64Array(k);
          for (let i = 0; i < k; i++) {
            let mu = surface[i] as number;
            for (let b = 0; b < n; b++) mu += crossMatrix.get(b, i) * alpha.get(b, 0);
            mus[i] = mu;
          }
          return { mus, sigmas: sigmas() };
        },
        failures,
      };
    });
  }
}
