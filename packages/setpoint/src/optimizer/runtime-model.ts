import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { BasisRuntimeModel } from './basis-runtime-model.js';
import { instanceFamily, totalCores } from './config-features.js';
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
  /**
   * Half-octave steps of data size each way at which every fleet job is also read (0: only as measured).
   * A job with twice the data of an analog behaves like the analog on a cluster half the size: its
   * memory limits and its scale-out plateau sit at twice the nodes.
   */
  dataScaleSteps: number;
  /** Prior sd of a job's data size against an analog's, in half-octave steps. */
  dataScaleSd: number;
  /** sd of ln(runtime) an analog's surface gains per doubling of cores beyond what its job ran. */
  extrapolationSd: number;
}

export const defaultAnalogSettings: AnalogSettings = {
  levelSd: 0.5,
  shapeSd: 0.15,
  genericWeight: 0.2,
  broadShare: 0.25,
  dataScaleSteps: 4,
  dataScaleSd: 2,
  extrapolationSd: 0.3,
};

/** One fleet job read at one data size: the job has `scale` × the analog's data. */
interface AnalogView {
  analog: number;
  scale: number;
  /** Share of the analog's prior weight. */
  share: number;
}

/** The data scales an analog is read at, with their prior shares (the analog's own scale likeliest). */
function analogViews(analogs: readonly RuntimeAnalog[], settings: AnalogSettings): AnalogView[] {
  const steps = Math.max(0, Math.round(settings.dataScaleSteps));
  const offsets = Array.from({ length: 2 * steps + 1 }, (_, k) => k - steps);
  const raw = offsets.map((k) => Math.exp(-(k * k) / (2 * settings.dataScaleSd ** 2)));
  const total = raw.reduce((sum, value) => sum + value, 0);
  return analogs.flatMap((analog, a) =>
    analog.ownJob
      ? [{ analog: a, scale: 1, share: 1 }]
      : offsets.map((k, o) => ({ analog: a, scale: 2 ** (k / 2), share: (raw[o] as number) / total })),
  );
}

const minimumWeight = 1e-4;
/** The heaviest components holding this share of the weight are kept; the rest change no decision. */
const keptMass = 0.99;
const broadBreadth = 4;

interface Component {
  /** Built only for the components kept after pruning. */
  label: () => string;
  /** The fleet job's id (its analog's source); null for the fleet models. */
  source: string | null;
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
  /** Every analog at every data scale it is read at. */
  private readonly views: AnalogView[];
  /**
   * Each view's ln(runtime) per candidate, computed on first use: a component's weight needs only the
   * configurations this job ran, and most views are pruned before their whole surface is wanted.
   */
  private readonly surfaces: Float64Array[];
  /** Each view's extra variance and failure rates per candidate, computed on first use like its surface. */
  private readonly blindVariances: Array<{ family: Float64Array; extrapolated: Float64Array } | undefined>;
  private readonly failureRates: Array<Array<number | undefined> | undefined>;
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
  /** Per candidate: the first candidate the model reads the same (`modelTwins`), whose surfaces it shares. */
  private readonly twinOf: Int32Array;

  constructor(prior: FleetPrior, candidates: readonly Candidate[], settings: Partial<AnalogSettings> = {}) {
    this.prior = prior;
    this.candidates = candidates;
    this.settings = { ...defaultAnalogSettings, ...settings };
    this.generic = new BasisRuntimeModel(prior, candidates);
    this.broad = new BasisRuntimeModel(prior, candidates, { breadth: broadBreadth });
    this.families = candidates.map((candidate) => instanceFamily(candidate));
    this.familyVariance = new Map(
      candidates.map((candidate, i) => [
        this.families[i] as string,
        familyPriorOf(prior, candidate).variance,
      ]),
    );
    this.views = analogViews(prior.analogs, this.settings);
    this.surfaces = this.views.map(() => new Float64Array(candidates.length).fill(Number.NaN));
    this.blindVariances = this.views.map(() => undefined);
    this.failureRates = this.views.map(() => undefined);
    this.analogLevels = prior.analogs.map((analog) =>
      analog.noiseVariance === undefined ? undefined : nearestNoiseLevel(prior.noise, analog.noiseVariance),
    );
    this.points = candidates.map((candidate) => configPoint(candidate));
    this.photonVariance = photonEffectVariances(candidates);
    const totalWeight = prior.analogs.reduce((sum, analog) => sum + analog.priorWeight, 0);
    this.priorWeights = prior.analogs.map((analog) => analog.priorWeight / (totalWeight || 1));
    this.index = new Map(candidates.map((candidate, i) => [candidate.id, i]));
    this.twinOf = modelTwins(candidates);
  }

  indexOf(candidateId: string): number | undefined {
    return this.index.get(candidateId);
  }

  /**
   * Candidate `i` as view `v`'s analog sees it: a job with `scale` × the analog's data runs on a cluster
   * like the analog's with 1 / `scale` of the nodes.
   */
  private viewedCandidate(v: number, i: number): Candidate {
    const candidate = this.candidates[i] as Candidate;
    const { scale } = this.views[v] as AnalogView;
    return scale === 1 ? candidate : { ...candidate, nodes: candidate.nodes / scale };
  }

  /** View `v`'s ln(runtime) on candidate `i`. */
  private surfaceAt(v: number, i: number): number {
    const surface = this.surfaces[v] as Float64Array;
    let value = surface[i] as number;
    if (Number.isNaN(value)) {
      const twin = this.twinOf[i] as number;
      if (twin !== i) value = this.surfaceAt(v, twin);
      else {
        const analog = this.prior.analogs[(this.views[v] as AnalogView).analog] as RuntimeAnalog;
        value = analog.logRuntime(this.viewedCandidate(v, i));
      }
      surface[i] = value;
    }
    return value;
  }

  private wholeSurface(v: number): Float64Array {
    for (let i = 0; i < this.candidates.length; i++) this.surfaceAt(v, i);
    return this.surfaces[v] as Float64Array;
  }

  /**
   * Extra variance of view `v`'s prediction: on a family its job never ran (the fleet's family effect
   * stands in for its measurement), and beyond the cores its job ran (its surface is extrapolated there;
   * `extrapolated`, which the job's own runs resolve where they are).
   */
  private blindVariance(v: number): { family: Float64Array; extrapolated: Float64Array } {
    const known = this.blindVariances[v];
    if (known) return known;
    const analog = this.prior.analogs[(this.views[v] as AnalogView).analog] as RuntimeAnalog;
    const [fewest, most] = analog.measuredLog2Cores;
    const { extrapolationSd } = this.settings;
    const variances = {
      family: Float64Array.from(this.families, (family) =>
        analog.measuredFamilies.has(family) ? 0 : (this.familyVariance.get(family) ?? 0),
      ),
      extrapolated: Float64Array.from(this.candidates, (_, i) => {
        const viewed = this.viewedCandidate(v, i);
        const cores = Math.log2(totalCores(viewed));
        return (extrapolationSd * Math.max(0, fewest - cores, cores - most)) ** 2;
      }),
    };
    this.blindVariances[v] = variances;
    return variances;
  }

  private analogFailures(v: number): Array<number | undefined> {
    const known = this.failureRates[v];
    if (known) return known;
    const analog = this.prior.analogs[(this.views[v] as AnalogView).analog] as RuntimeAnalog;
    const rates: Array<number | undefined> = [];
    this.candidates.forEach((_, i) => {
      const twin = this.twinOf[i] as number;
      rates.push(twin !== i ? rates[twin] : analog.failureRate(this.viewedCandidate(v, i)));
    });
    this.failureRates[v] = rates;
    return rates;
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
    const unresolved = analogCount > 0 ? this.unresolvedShares(observed) : new Float64Array(0);
    const components: Component[] = [];
    noise.variances.forEach((noiseVariance, level) => {
      const levelWeight = noise.weights[level] as number;
      const scatter = scatterLogLikelihood(observed, noiseVariance);
      for (const [model, share, label] of [
        [this.generic, 1 - this.settings.broadShare, 'the fleet model'],
        [this.broad, this.settings.broadShare, 'the broad fleet model'],
      ] as const) {
        const fit = model.predict(observed, noiseVariance);
        const predictions = {
          mus: Float64Array.from(fit.predictions, (p) => p.mu),
          sigmas: Float64Array.from(fit.predictions, (p) => p.sigma),
        };
        components.push({
          label: () => label,
          source: null,
          logWeight: Math.log(genericShare * share * levelWeight) + fit.logEvidence + scatter,
          predictions: () => predictions,
          failures: () => undefined,
        });
      }
      if (analogCount > 0)
        components.push(...this.analogComponents(observed, unresolved, level, noiseVariance, scatter));
    });
    // a reduce, not Math.max(...): a large fleet read at every data scale has tens of thousands of components
    const top = components.reduce((most, component) => Math.max(most, component.logWeight), -Infinity);
    const raw = components.map((component) => Math.exp(component.logWeight - top));
    const total = raw.reduce((sum, value) => sum + value, 0);
    const kept = heaviest(
      components
        .map((component, c) => ({ component, weight: (raw[c] as number) / total }))
        .filter((entry) => entry.weight >= minimumWeight),
    );
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
      kept.map((entry) => entry.component.label()),
      kept.map((entry) => entry.component.source),
    );
  }

  /**
   * What the job's own runs leave unsaid of each candidate (1 − the largest squared residual correlation
   * with a configuration it ran): nothing where it ran, more with distance.
   */
  private unresolvedShares(observed: readonly ObservedConfiguration[]): Float64Array {
    return Float64Array.from(this.points, (point) => {
      let explained = 0;
      for (const entry of observed)
        explained = Math.max(
          explained,
          residualCorrelation(point, this.points[entry.index]!, this.prior.kernel) ** 2,
        );
      return 1 - explained;
    });
  }

  /** Every analog, at every data scale, taken at one noise level: analogs pinned elsewhere are skipped. */
  private analogComponents(
    observed: readonly ObservedConfiguration[],
    unresolved: Float64Array,
    level: number,
    noiseVariance: number,
    scatter: number,
  ): Component[] {
    const k = this.candidates.length;
    const n = observed.length;
    const analogShare = 1 - this.settings.genericWeight;
    const levelWeight = this.prior.noise.weights[level] as number;
    const members = this.views
      .map((view, v) => {
        const pinned = this.analogLevels[view.analog];
        const atLevel = pinned === undefined ? levelWeight : pinned === level ? 1 : 0;
        return { v, a: view.analog, weight: atLevel * view.share };
      })
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
    const labelOf = (v: number, a: number) =>
      viewLabel(this.prior.analogs[a]?.label ?? `fleet job ${a + 1}`, this.views[v] as AnalogView);
    const sourceOf = (a: number) => this.prior.analogs[a]?.source ?? null;
    const sigmasOf = (v: number) => {
      const blind = this.blindVariance(v);
      return Float64Array.from(latent, (value, i) =>
        Math.sqrt(
          value +
            (blind.family[i] as number) +
            (blind.extrapolated[i] as number) * (unresolved[i] as number) +
            noiseVariance,
        ),
      );
    };
    const priorLogWeight = (a: number, weight: number) =>
      Math.log(analogShare * this.priorWeights[a]! * weight);
    if (n === 0 || !cholesky || !cross) {
      return members.map(({ v, a, weight }) => ({
        label: () => labelOf(v, a),
        source: sourceOf(a),
        logWeight: priorLogWeight(a, weight),
        predictions: () => ({ mus: this.wholeSurface(v), sigmas: sigmasOf(v) }),
        failures: () => this.analogFailures(v),
      }));
    }
    // Every view shares the kernel, so one solve serves them all: a column of residuals per view.
    const residuals = new Matrix(n, members.length);
    members.forEach(({ v }, m) => {
      for (let b = 0; b < n; b++) {
        const entry = observed[b] as ObservedConfiguration;
        residuals.set(b, m, entry.meanLog - this.surfaceAt(v, entry.index));
      }
    });
    const alphas = cholesky.solve(residuals);
    const lower = cholesky.lowerTriangularMatrix;
    let logNormalizer = -0.5 * n * Math.log(2 * Math.PI);
    for (let b = 0; b < n; b++) logNormalizer -= Math.log(lower.get(b, b));
    const crossMatrix = cross;
    return members.map(({ v, a, weight }, m) => {
      let quadratic = 0;
      for (let b = 0; b < n; b++) quadratic += residuals.get(b, m) * alphas.get(b, m);
      return {
        label: () => labelOf(v, a),
        source: sourceOf(a),
        logWeight: priorLogWeight(a, weight) + logNormalizer - 0.5 * quadratic + scatter,
        predictions: () => {
          const surface = this.wholeSurface(v);
          const mus = new Float64Array(k);
          for (let i = 0; i < k; i++) {
            let mu = surface[i] as number;
            for (let b = 0; b < n; b++) mu += crossMatrix.get(b, i) * alphas.get(b, m);
            mus[i] = mu;
          }
          return { mus, sigmas: sigmasOf(v) };
        },
        failures: () => this.analogFailures(v),
      };
    });
  }
}

/**
 * For each candidate, the first one whose every field but its id and price is the same: the hardware, the
 * engine, the storage, the nodes (candidates a market, autoscaling or first-on-demand apart). An analog's
 * surface and failure rates read only those fields, so twins share them to the last bit.
 */
function modelTwins(candidates: readonly Candidate[]): Int32Array {
  const first = new Map<string, number>();
  return Int32Array.from(candidates, (candidate, i) => {
    const { id: _id, priceUsdPerNodeHour: _price, ...read } = candidate;
    const key = JSON.stringify(read);
    const known = first.get(key);
    if (known !== undefined) return known;
    first.set(key, i);
    return i;
  });
}

/** An analog's name, with the data scale it is read at ("scout:kmeans-bigdata at 1/2 its data"). */
function viewLabel(source: string, view: AnalogView): string {
  if (view.scale === 1) return source;
  const ratio = view.scale >= 1 ? view.scale : 1 / view.scale;
  const text = Number.isInteger(Math.round(ratio * 100) / 100) ? String(Math.round(ratio)) : ratio.toFixed(1);
  return `${source} at ${view.scale >= 1 ? `${text}×` : `1/${text}`} its data`;
}

/** The heaviest entries holding `keptMass` of their weight, heaviest first. */
function heaviest<T extends { weight: number }>(entries: T[]): T[] {
  entries.sort((a, b) => b.weight - a.weight);
  const target = keptMass * entries.reduce((sum, entry) => sum + entry.weight, 0);
  let mass = 0;
  let count = 0;
  while (count < entries.length && mass < target) mass += (entries[count++] as T).weight;
  return entries.slice(0, count);
}
