import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { FeatureSpace, instanceFamily, shapeCoordinates, totalMemoryGib } from './config-features.js';
import { squaredExponential } from './fleet-prior-math.js';
import { RuntimeAnalog } from './runtime-analog.js';
import type { Candidate, Observation } from './types.js';

export { squaredExponential };

/** Every run of one other job, used only to learn what is common to Spark jobs. */
export interface FleetJob {
  candidates: readonly Candidate[];
  observations: readonly Observation[];
}

/** Failure rate of a configuration by how much less cluster memory it has than a configuration known to work. */
export interface MemoryRiskBucket {
  /** Upper bound (exclusive) of log2(memory of candidate / memory of the smallest known-good configuration). */
  maxLog2Ratio: number;
  failureRate: number;
}

/**
 * What the fleet teaches a new job: a Gaussian prior over the runtime-model coefficients (family speed
 * ratios, scale-out slopes, memory-pressure effects), how far real jobs stray from that form and how
 * smoothly, run-to-run noise, and how often jobs fail when given less memory than a known-good run.
 */
export interface FleetPrior {
  space: FeatureSpace;
  mean: number[];
  covariance: number[][];
  residualVariance: number;
  residualLengthscale: number;
  noiseVariance: number;
  memoryRisk: MemoryRiskBucket[];
  /** Runtime surfaces of the fleet's jobs, whose shapes a new job may borrow. */
  analogs: RuntimeAnalog[];
  jobs: number;
}

const interceptVariance = 25;
const coefficientJitter = 0.02 ** 2;
const defaultNoiseVariance = 0.03 ** 2;
const ridge = 0.05;

/** The prior Setpoint uses with no fleet at all: flat coefficients, generous uncertainty. */
export function uninformedPrior(families: Iterable<string> = []): FleetPrior {
  const space = new FeatureSpace(families);
  const d = space.dimension;
  const covariance = identity(d, 0.25);
  covariance[0]![0] = interceptVariance;
  const mean = new Array<number>(d).fill(0);
  mean[1] = -0.5;
  return {
    space,
    mean,
    covariance,
    residualVariance: 0.15 ** 2,
    residualLengthscale: 1.5,
    noiseVariance: defaultNoiseVariance,
    memoryRisk: defaultMemoryRisk(),
    analogs: [],
    jobs: 0,
  };
}

function defaultMemoryRisk(): MemoryRiskBucket[] {
  return [
    { maxLog2Ratio: -2, failureRate: 0.5 },
    { maxLog2Ratio: -1, failureRate: 0.25 },
    { maxLog2Ratio: 0, failureRate: 0.1 },
    { maxLog2Ratio: Number.POSITIVE_INFINITY, failureRate: 0.02 },
  ];
}

interface ConfigSummary {
  candidate: Candidate;
  meanLogRuntime: number | undefined;
  runs: number;
  failures: number;
}

function summarize(job: FleetJob): ConfigSummary[] {
  const byId = new Map<string, { candidate: Candidate; logs: number[]; runs: number; failures: number }>();
  for (const candidate of job.candidates)
    byId.set(candidate.id, { candidate, logs: [], runs: 0, failures: 0 });
  for (const observation of job.observations) {
    const entry = byId.get(observation.candidateId);
    if (!entry) continue;
    entry.runs++;
    if (observation.completed) entry.logs.push(Math.log(observation.runtimeS));
    else entry.failures++;
  }
  return [...byId.values()]
    .filter((entry) => entry.runs > 0)
    .map((entry) => ({
      candidate: entry.candidate,
      meanLogRuntime: entry.logs.length > 0 ? mean(entry.logs) : undefined,
      runs: entry.runs,
      failures: entry.failures,
    }));
}

/** Learns the fleet prior from complete histories of other jobs (never the job being optimized). */
export function learnFleetPrior(jobs: readonly FleetJob[]): FleetPrior {
  const families = jobs.flatMap((job) =>
    job.candidates.map((candidate) => instanceFamily(candidate.instanceType)),
  );
  const space = new FeatureSpace(families);
  const d = space.dimension;
  const fits: number[][] = [];
  const residualSets: Array<{ coordinates: Array<[number, number, number]>; residuals: number[] }> = [];
  const withinConfigSquares: number[] = [];
  const analogInputs: Array<{ beta: number[]; summaries: ConfigSummary[] }> = [];
  for (const job of jobs) {
    const summaries = summarize(job).filter((summary) => summary.meanLogRuntime !== undefined);
    if (summaries.length < 6) continue;
    const rows = summaries.map((summary) => space.basis(summary.candidate));
    const targets = summaries.map((summary) => summary.meanLogRuntime as number);
    const beta = ridgeFit(rows, targets, d);
    fits.push(beta);
    analogInputs.push({ beta, summaries: summarize(job) });
    residualSets.push({
      coordinates: summaries.map((summary) => shapeCoordinates(summary.candidate)),
      residuals: rows.map((row, i) => (targets[i] as number) - dot(row, beta)),
    });
    withinConfigSquares.push(...withinConfigDeviations(job));
  }
  if (fits.length < 2) return { ...uninformedPrior(families), memoryRisk: learnMemoryRisk(jobs) };
  const meanBeta = new Array<number>(d).fill(0).map((_, k) => mean(fits.map((beta) => beta[k] as number)));
  const covariance = identity(d, coefficientJitter);
  for (let a = 1; a < d; a++) {
    for (let b = 1; b < d; b++) {
      let sum = 0;
      for (const beta of fits)
        sum += ((beta[a] as number) - meanBeta[a]!) * ((beta[b] as number) - meanBeta[b]!);
      covariance[a]![b]! += sum / (fits.length - 1);
    }
  }
  covariance[0]![0] = interceptVariance;
  const residualVariance = Math.max(
    1e-4,
    mean(residualSets.flatMap((set) => set.residuals.map((residual) => residual * residual))),
  );
  const noiseVariance =
    withinConfigSquares.length >= 3 ? Math.max(1e-4, mean(withinConfigSquares)) : defaultNoiseVariance;
  const residualLengthscale = bestResidualLengthscale(residualSets, residualVariance, noiseVariance);
  const analogs = analogInputs.map(
    ({ beta, summaries }) =>
      new RuntimeAnalog(
        space,
        beta,
        summaries
          .filter((summary) => summary.meanLogRuntime !== undefined)
          .map((summary) => ({ candidate: summary.candidate, logRuntime: summary.meanLogRuntime as number })),
        summaries.map((summary) => ({ candidate: summary.candidate, rate: summary.failures / summary.runs })),
        residualVariance,
        residualLengthscale,
        noiseVariance,
      ),
  );
  return {
    space,
    mean: meanBeta,
    covariance,
    residualVariance,
    residualLengthscale,
    noiseVariance,
    memoryRisk: learnMemoryRisk(jobs),
    analogs,
    jobs: fits.length,
  };
}

function withinConfigDeviations(job: FleetJob): number[] {
  const logs = new Map<string, number[]>();
  for (const observation of job.observations) {
    if (!observation.completed) continue;
    const list = logs.get(observation.candidateId) ?? [];
    list.push(Math.log(observation.runtimeS));
    logs.set(observation.candidateId, list);
  }
  const out: number[] = [];
  for (const list of logs.values()) {
    if (list.length < 2) continue;
    const m = mean(list);
    for (const value of list) out.push(((value - m) ** 2 * list.length) / (list.length - 1));
  }
  return out;
}

/** Picks the residual smoothness that makes the fleet's residuals most likely under a squared-exponential kernel. */
function bestResidualLengthscale(
  sets: ReadonlyArray<{ coordinates: Array<[number, number, number]>; residuals: number[] }>,
  variance: number,
  noise: number,
): number {
  let best = 1;
  let bestLikelihood = Number.NEGATIVE_INFINITY;
  for (const lengthscale of [0.5, 0.75, 1, 1.5, 2, 3]) {
    let total = 0;
    for (const set of sets) {
      const n = set.residuals.length;
      const k = new Matrix(n, n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          k.set(i, j, squaredExponential(set.coordinates[i]!, set.coordinates[j]!, variance, lengthscale));
        }
        k.set(i, i, k.get(i, i) + noise + 1e-6);
      }
      const cholesky = new CholeskyDecomposition(k);
      const alpha = cholesky.solve(Matrix.columnVector(set.residuals));
      const lower = cholesky.lowerTriangularMatrix;
      let logDet = 0;
      for (let i = 0; i < n; i++) logDet += 2 * Math.log(lower.get(i, i));
      let quadratic = 0;
      for (let i = 0; i < n; i++) quadratic += (set.residuals[i] as number) * alpha.get(i, 0);
      total += -0.5 * quadratic - 0.5 * logDet;
    }
    if (total > bestLikelihood) {
      bestLikelihood = total;
      best = lengthscale;
    }
  }
  return best;
}

function learnMemoryRisk(jobs: readonly FleetJob[]): MemoryRiskBucket[] {
  const bounds = [-3, -2, -1, -0.5, 0, Number.POSITIVE_INFINITY];
  const failures = new Array<number>(bounds.length).fill(0);
  const totals = new Array<number>(bounds.length).fill(0);
  for (const job of jobs) {
    const summaries = summarize(job);
    const good = summaries.filter((summary) => summary.meanLogRuntime !== undefined);
    for (const reference of good) {
      const referenceMemory = totalMemoryGib(reference.candidate);
      for (const other of summaries) {
        if (other === reference) continue;
        const ratio = Math.log2(totalMemoryGib(other.candidate) / referenceMemory);
        const bucket = bounds.findIndex((bound) => ratio < bound);
        failures[bucket]! += other.failures / other.runs;
        totals[bucket]! += 1;
      }
    }
  }
  const fallback = defaultMemoryRisk();
  return bounds.map((bound, i) => ({
    maxLog2Ratio: bound,
    failureRate:
      totals[i]! > 0
        ? (failures[i]! + 0.5) / (totals[i]! + 1)
        : (fallback.find((bucket) => bound <= bucket.maxLog2Ratio)?.failureRate ?? 0.1),
  }));
}

function ridgeFit(rows: readonly Float64Array[], targets: readonly number[], d: number): number[] {
  const gram = new Matrix(d, d);
  const moment = new Matrix(d, 1);
  rows.forEach((row, n) => {
    for (let a = 0; a < d; a++) {
      moment.set(a, 0, moment.get(a, 0) + (row[a] as number) * (targets[n] as number));
      for (let b = 0; b < d; b++) gram.set(a, b, gram.get(a, b) + (row[a] as number) * (row[b] as number));
    }
  });
  for (let a = 0; a < d; a++) gram.set(a, a, gram.get(a, a) + (a === 0 ? 1e-6 : ridge));
  const solution = new CholeskyDecomposition(gram).solve(moment);
  return Array.from({ length: d }, (_, a) => solution.get(a, 0));
}

function identity(d: number, diagonal: number): number[][] {
  return Array.from({ length: d }, (_, a) => Array.from({ length: d }, (_, b) => (a === b ? diagonal : 0)));
}

function dot(row: Float64Array, beta: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += (row[i] as number) * (beta[i] as number);
  return sum;
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return values.length > 0 ? sum / values.length : 0;
}
