import { constrainedExpectedImprovement, normalCdf } from './normal-distribution.js';

/** Quantiles are found to this precision in ln(runtime): a millionth of a percent of the runtime. */
const logTolerance = 1e-8;

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
    /** What each component is: "fleet model", "fleet model (broad)", or the fleet job an analog is. */
    readonly labels: readonly string[] = [],
  ) {}

  /** A structured clone (posted from a worker thread) with its methods back. */
  static revive(clone: RuntimeMixture): RuntimeMixture {
    return Object.setPrototypeOf(clone, RuntimeMixture.prototype) as RuntimeMixture;
  }

  /** The components that carry the most weight, merged by label (an analog appears at several noise levels). */
  leadingComponents(count: number): Array<{ label: string; weight: number }> {
    const merged = new Map<string, number>();
    this.weights.forEach((weight, c) => {
      const label = this.labels[c] ?? `component ${c + 1}`;
      merged.set(label, (merged.get(label) ?? 0) + weight);
    });
    return [...merged]
      .map(([label, weight]) => ({ label, weight }))
      .sort((a, b) => b.weight - a.weight)
      .slice(0, count);
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

  /** Runtime at probability p, by bisection on the mixture CDF. */
  quantile(candidate: number, p: number): number {
    return this.quantiles(candidate, [p])[0] as number;
  }

  /**
   * Runtimes at several probabilities, by bisection on the mixture CDF to a millionth of a percent of the
   * runtime: each search starts from the last one's answer, as quantiles only grow with p.
   */
  quantiles(candidate: number, ps: readonly number[]): number[] {
    let lowest = Number.POSITIVE_INFINITY;
    let highest = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < this.weights.length; c++) {
      lowest = Math.min(lowest, this.mus[c]![candidate]! - 6 * this.sigmas[c]![candidate]!);
      highest = Math.max(highest, this.mus[c]![candidate]! + 6 * this.sigmas[c]![candidate]!);
    }
    const order = ps.map((_, i) => i).sort((a, b) => (ps[a] as number) - (ps[b] as number));
    const out = new Array<number>(ps.length);
    let floor = lowest;
    for (const i of order) {
      const p = ps[i] as number;
      let low = floor;
      let high = highest;
      while (high - low > logTolerance) {
        const middle = (low + high) / 2;
        if (this.cdfAtLog(candidate, middle) < p) low = middle;
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
