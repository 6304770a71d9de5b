import { constrainedExpectedImprovement, normalCdf, normalPdf } from './normal-distribution.js';

/** Quantiles are found to this precision in ln(runtime): a millionth of a percent of the runtime. */
const logTolerance = 1e-8;
/**
 * How far from p an evaluated CDF value must be to settle a comparison at another point: the sum's
 * rounding (hundreds of terms, each within an ulp) is below 1e-13, so the CDF as computed is increasing
 * at this scale and a settled comparison is the one an evaluation there would make.
 */
const settledMargin = 1e-9;
/** Half-width (ln runtime) of the bracket placed around each quantile's Newton estimate. */
const guessBracket = 2e-8;

/** Evaluated points of an increasing function, kept in order, that settle comparisons with p elsewhere. */
class SettledPoints {
  readonly #xs: number[] = [];
  readonly #values: number[] = [];

  constructor(private readonly f: (x: number) => number) {}

  evaluate(x: number): number {
    const at = this.#firstAtOrAfter(x);
    if (this.#xs[at] === x) return this.#values[at] as number;
    const value = this.f(x);
    this.#xs.splice(at, 0, x);
    this.#values.splice(at, 0, value);
    return value;
  }

  /** f(x) < p: settled by a neighbour when one is far enough from p, else evaluated. */
  below(x: number, p: number): boolean {
    const at = this.#firstAtOrAfter(x);
    if (this.#xs[at] === x) return (this.#values[at] as number) < p;
    const right = this.#values[at];
    if (right !== undefined && right < p - settledMargin) return true;
    const left = this.#values[at - 1];
    if (left !== undefined && left >= p + settledMargin) return false;
    return this.evaluate(x) < p;
  }

  #firstAtOrAfter(x: number): number {
    let low = 0;
    let high = this.#xs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#xs[middle] as number) < x) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * Where the mixture's CDF crosses p, by a few safeguarded Newton steps from `start` inside [low, high]; null
 * when they do not settle (the bisection then finds it alone). Only a guess: it places points, never an
 * answer, so where it starts changes how many steps it takes and nothing else.
 */
function newtonGuess(
  weights: Float64Array,
  mus: Float64Array,
  sigmas: Float64Array,
  p: number,
  low: number,
  high: number,
  start: number,
): number | null {
  let x = start;
  let lower = low;
  let upper = high;
  for (let step = 0; step < 30; step++) {
    let value = 0;
    let density = 0;
    for (let c = 0; c < weights.length; c++) {
      const z = (x - mus[c]!) / sigmas[c]!;
      value += weights[c]! * normalCdf(z);
      density += (weights[c]! * normalPdf(z)) / sigmas[c]!;
    }
    if (value < p) lower = x;
    else upper = x;
    const next = density > 0 ? x - (value - p) / density : Number.NaN;
    const inside = next > lower && next < upper;
    const moved = inside ? next : (lower + upper) / 2;
    if (Math.abs(moved - x) < logTolerance / 4) return moved;
    x = moved;
  }
  return null;
}

/**
 * What a mixture has answered, kept beside it (a mixture posted from a worker thread is a structured clone:
 * nothing of this crosses with it). `twins`: candidates by a sum of their predictive columns, each group's
 * members to compare exactly; `quantiles`: answers by the first candidate of identical columns and the ps.
 */
interface Answered {
  twins: Map<number, number[]>;
  representative: Map<number, number>;
  quantiles: Map<string, readonly number[]>;
}

const answered = new WeakMap<RuntimeMixture, Answered>();

/** A model component of a job's prediction, as explanations name it; `source`: the fleet job's id. */
export interface LeadingComponent {
  label: string;
  weight: number;
  source?: string;
}

/**
 * The predictive distribution of ln(runtime) on every candidate: a weighted mixture of Gaussians, one per
 * model component (the generic model and each fleet analog), with the components' weights shared.
 */
export class RuntimeMixture {
  constructor(
    readonly weights: readonly number[],
    private readonly mus: readonly Float64Array[],
    private readonly sigmas: readonly Float64Array[],
    private readonly failureRates: ReadonlyArray<ReadonlyArray<number | undefined> | undefined>,
    /** What each component is: "the fleet model", "the broad fleet model", or the fleet job an analog is. */
    readonly labels: readonly string[] = [],
    /** The id of the fleet job each component reads (null for the fleet models), for the API. */
    readonly sources: ReadonlyArray<string | null> = [],
  ) {}

  /** A structured clone (posted from a worker thread) with its methods back. */
  static revive(clone: RuntimeMixture): RuntimeMixture {
    return Object.setPrototypeOf(clone, RuntimeMixture.prototype) as RuntimeMixture;
  }

  /**
   * The components that carry the most weight, merged by fleet job and label (an analog appears at several
   * noise levels); two jobs of the same name stay apart.
   */
  leadingComponents(count: number): LeadingComponent[] {
    const merged = new Map<string, LeadingComponent>();
    this.weights.forEach((weight, c) => {
      const label = this.labels[c] ?? `component ${c + 1}`;
      const source = this.sources[c] ?? null;
      const key = JSON.stringify([source, label]);
      const entry = merged.get(key);
      if (entry) entry.weight += weight;
      else merged.set(key, source === null ? { label, weight } : { label, weight, source });
    });
    return [...merged.values()].sort((a, b) => b.weight - a.weight).slice(0, count);
  }

  probabilityBelow(candidate: number, runtimeS: number): number {
    return this.cdfAtLog(candidate, Math.log(runtimeS));
  }

  /** P(ln runtime ≤ value), with every component's spread multiplied by `spreadScale`. */
  cdfAtLog(candidate: number, logValue: number, spreadScale = 1): number {
    let sum = 0;
    for (let c = 0; c < this.weights.length; c++) {
      sum +=
        this.weights[c]! *
        normalCdf((logValue - this.mus[c]![candidate]!) / (this.sigmas[c]![candidate]! * spreadScale));
    }
    return sum;
  }

  /**
   * `cdfAtLog(candidate, logValue, scale)` for every scale at once, each equal to it to the last bit (the
   * same operations in the same order): one pass over the components instead of one per scale.
   */
  cdfAtLogScales(candidate: number, logValue: number, spreadScales: readonly number[]): number[] {
    const sums = new Array<number>(spreadScales.length).fill(0);
    for (let c = 0; c < this.weights.length; c++) {
      const weight = this.weights[c]!;
      const distance = logValue - this.mus[c]![candidate]!;
      const sigma = this.sigmas[c]![candidate]!;
      for (let s = 0; s < spreadScales.length; s++) {
        sums[s]! += weight * normalCdf(distance / (sigma * spreadScales[s]!));
      }
    }
    return sums;
  }

  expectedRuntime(candidate: number): number {
    let sum = 0;
    for (let c = 0; c < this.weights.length; c++) {
      const sigma = this.sigmas[c]![candidate]!;
      sum += this.weights[c]! * Math.exp(this.mus[c]![candidate]! + (sigma * sigma) / 2);
    }
    return sum;
  }

  /** Expected improvement on cost with the runtime limit inside the expectation, summed over components. */
  expectedImprovement(
    candidate: number,
    ratePerSecond: number,
    bestCost: number,
    maxRuntimeS: number,
  ): number {
    let sum = 0;
    for (let c = 0; c < this.weights.length; c++) {
      sum +=
        this.weights[c]! *
        constrainedExpectedImprovement(
          this.mus[c]![candidate]!,
          this.sigmas[c]![candidate]!,
          ratePerSecond,
          bestCost,
          maxRuntimeS,
        );
    }
    return sum;
  }

  /**
   * The first candidate asked about whose predictive distribution is this one's to the last bit (the same
   * mean and spread in every component): candidates that differ only in what the model does not read —
   * the market, autoscaling, the price — are such twins, and every answer that reads only the distribution
   * is the same for them.
   */
  representativeOf(candidate: number): number {
    let known = answered.get(this);
    if (!known) {
      known = { twins: new Map(), representative: new Map(), quantiles: new Map() };
      answered.set(this, known);
    }
    const found = known.representative.get(candidate);
    if (found !== undefined) return found;
    let signature = 0;
    for (let c = 0; c < this.weights.length; c++)
      signature += (c + 1) * this.mus[c]![candidate]! + (c + 2) * this.sigmas[c]![candidate]!;
    const group = known.twins.get(signature) ?? [];
    let representative = group.find((other) => this.sameDistribution(other, candidate));
    if (representative === undefined) {
      representative = candidate;
      group.push(candidate);
      known.twins.set(signature, group);
    }
    known.representative.set(candidate, representative);
    return representative;
  }

  private sameDistribution(a: number, b: number): boolean {
    for (let c = 0; c < this.weights.length; c++) {
      if (!Object.is(this.mus[c]![a], this.mus[c]![b]) || !Object.is(this.sigmas[c]![a], this.sigmas[c]![b]))
        return false;
    }
    return true;
  }

  /** Runtime at probability p, by bisection on the mixture CDF. */
  quantile(candidate: number, p: number): number {
    return this.quantiles(candidate, [p])[0] as number;
  }

  /**
   * Runtimes at several probabilities, by bisection on the mixture CDF to a millionth of a percent of the
   * runtime: each search starts from the last one's answer, as quantiles only grow with p. The CDF is
   * evaluated exactly as `cdfAtLog` does, but only where a comparison is not already settled: the CDF is
   * increasing, so a point evaluated to the right of a midpoint with a value below p − `settledMargin`
   * (or to its left, above p + the margin) decides the midpoint's comparison; a few Newton steps place
   * two such points just around each answer first. The answers are those of the plain bisection, found
   * with about a third of the evaluations.
   */
  quantiles(candidate: number, ps: readonly number[]): number[] {
    // Twins' searches are the same arithmetic on the same numbers: each is searched once.
    const representative = this.representativeOf(candidate);
    const known = answered.get(this) as Answered;
    const key = `${representative}|${ps.join(',')}`;
    let found = known.quantiles.get(key);
    if (!found) {
      found = this.searchQuantiles(representative, ps);
      known.quantiles.set(key, found);
    }
    return [...found];
  }

  private searchQuantiles(candidate: number, ps: readonly number[]): number[] {
    const count = this.weights.length;
    const weights = Float64Array.from(this.weights);
    const mus = new Float64Array(count);
    const sigmas = new Float64Array(count);
    let lowest = Number.POSITIVE_INFINITY;
    let highest = Number.NEGATIVE_INFINITY;
    let meanOfMus = 0;
    for (let c = 0; c < count; c++) {
      const mu = this.mus[c]![candidate]!;
      const sigma = this.sigmas[c]![candidate]!;
      mus[c] = mu;
      sigmas[c] = sigma;
      meanOfMus += weights[c]! * mu;
      lowest = Math.min(lowest, mu - 6 * sigma);
      highest = Math.max(highest, mu + 6 * sigma);
    }
    // the same terms in the same order as cdfAtLog(candidate, value)
    const cdf = (value: number): number => {
      let sum = 0;
      for (let c = 0; c < count; c++) sum += weights[c]! * normalCdf((value - mus[c]!) / sigmas[c]!);
      return sum;
    };
    const settled = new SettledPoints(cdf);
    const order = ps.map((_, i) => i).sort((a, b) => (ps[a] as number) - (ps[b] as number));
    const out = new Array<number>(ps.length);
    let floor = lowest;
    for (const i of order) {
      const p = ps[i] as number;
      // from the last answer (the next is just above it), the first from the components' weighted mean
      const start = i === order[0] ? Math.min(Math.max(meanOfMus, floor), highest) : floor;
      const guess = newtonGuess(weights, mus, sigmas, p, floor, highest, start);
      if (guess !== null) {
        settled.evaluate(guess - guessBracket);
        settled.evaluate(guess + guessBracket);
      }
      let low = floor;
      let high = highest;
      while (high - low > logTolerance) {
        const middle = (low + high) / 2;
        if (settled.below(middle, p)) low = middle;
        else high = middle;
      }
      floor = low;
      out[i] = Math.exp((low + high) / 2);
    }
    return out;
  }

  /**
   * Failure rate the analogs showed on this configuration, weighted like their runtime surfaces; undefined
   * when the components that carry most weight never ran there.
   */
  analogFailureRate(candidate: number): number | undefined {
    let known = 0;
    let sum = 0;
    for (let c = 0; c < this.weights.length; c++) {
      const rate = this.failureRates[c]?.[candidate];
      if (rate === undefined) continue;
      known += this.weights[c]!;
      sum += this.weights[c]! * rate;
    }
    return known >= 0.5 ? sum / known : undefined;
  }
}
