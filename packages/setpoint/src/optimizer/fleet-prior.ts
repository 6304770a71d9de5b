import { mean as meanOf } from '@setpoint/foundation/statistics';
import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { FeatureSpace, instanceFamily } from './config-features.js';
import { evenlySpaced } from './evenly-spaced.js';
import {
  defaultFailurePrior,
  type FailurePrior,
  type FailureRecord,
  learnFailurePrior,
} from './failure-prior.js';
import {
  type FamilyTraitPrior,
  familyEffectMean,
  learnFamilyTraitPrior,
  uninformedFamilyTraitPrior,
} from './family-trait-prior.js';
import {
  defaultNoiseLevels,
  learnNoiseLevels,
  type NoiseLevels,
  withinConfigurationVariance,
} from './noise-levels.js';
import { identityCalibration, type PredictiveCalibration } from './predictive-calibration.js';
import { configPoint, type ResidualKernelShape, residualCorrelation } from './residual-kernel.js';
import { type MeasuredPoint, RuntimeAnalog } from './runtime-analog.js';
import type { Candidate, Hardware, Observation } from './types.js';

/** Every run of one other job, used only to learn what is common to Spark jobs. */
export interface FleetJob {
  candidates: readonly Candidate[];
  observations: readonly Observation[];
  /** Where the job's measurements come from (a dataset, an organization): its id, for the record. */
  source?: string;
  /** The job as a person knows it (a project's name), for explanations; the source when absent. */
  label?: string;
  /** Shipped with Setpoint rather than run by this organization: it yields as the organization's fleet grows. */
  shipped?: boolean;
}

/**
 * Share of the analogs' prior weight the shipped jobs keep when the organization has `own` jobs of its
 * own: all of it on a fresh install, half at three jobs, a seventh at eighteen — a team's own jobs are
 * the best guide to its next one, the shipped ones a start.
 */
export function shippedAnalogShare(own: number): number {
  return 1 / (1 + own / 3);
}

/**
 * What the fleet teaches a new job: a Gaussian prior over the runtime-model coefficients (family speed
 * ratios, scale-out slopes, memory-pressure effects), how families it never saw relate to their traits,
 * how far real jobs stray from the basis and how smoothly, how noisy runs are, how often jobs fail when
 * given less memory than a run that worked, every fleet job's measured surface (the analogs), and how
 * much the resulting predictions had to be widened to come true on jobs held out of the fleet.
 */
export interface FleetPrior {
  space: FeatureSpace;
  mean: number[];
  covariance: number[][];
  familyTraits: FamilyTraitPrior;
  residualVariance: number;
  kernel: ResidualKernelShape;
  noise: NoiseLevels;
  failure: FailurePrior;
  /** Runtime surfaces of the fleet's jobs, whose shapes a new job may borrow. */
  analogs: RuntimeAnalog[];
  calibration: PredictiveCalibration;
  jobs: number;
  /** Of `jobs`, how many were shipped with Setpoint (the rest are the organization's own). */
  shippedJobs: number;
}

/**
 * A prior again after a structured clone (learned on a worker thread and posted back): its feature
 * space and analogs get their classes back; every fitted number is kept as it was learned.
 */
export function reviveFleetPrior(clone: FleetPrior): FleetPrior {
  return {
    ...clone,
    space: FeatureSpace.revive(clone.space),
    analogs: clone.analogs.map((analog) => RuntimeAnalog.revive(analog)),
  };
}

const interceptVariance = 25;
const coefficientJitter = 0.02 ** 2;
const ridge = 0.05;
/** Fleet jobs with fewer measured configurations than this teach the basis too little to be fitted. */
const minimumConfigurations = 6;
const defaultKernel: ResidualKernelShape = { lengthscale: 1.5, familyCorrelation: 0.8 };

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
    familyTraits: uninformedFamilyTraitPrior,
    residualVariance: 0.15 ** 2,
    kernel: defaultKernel,
    noise: defaultNoiseLevels,
    failure: defaultFailurePrior,
    analogs: [],
    calibration: identityCalibration,
    jobs: 0,
    shippedJobs: 0,
  };
}

interface ConfigSummary {
  candidate: Candidate;
  logs: number[];
  runs: number;
  failures: number;
}

function summarize(job: FleetJob): ConfigSummary[] {
  const byId = new Map<string, ConfigSummary>();
  for (const candidate of job.candidates)
    byId.set(candidate.id, { candidate, logs: [], runs: 0, failures: 0 });
  for (const observation of job.observations) {
    const entry = byId.get(observation.candidateId);
    if (!entry) continue;
    entry.runs++;
    if (observation.completed && observation.runtimeS > 0) entry.logs.push(Math.log(observation.runtimeS));
    else if (!observation.completed) entry.failures++;
  }
  return [...byId.values()].filter((entry) => entry.runs > 0);
}

interface JobFit {
  shipped: boolean;
  source: string;
  label: string;
  beta: number[];
  measured: MeasuredPoint[];
  summaries: ConfigSummary[];
  residuals: number[];
  noiseVariance: number | undefined;
  families: Set<string>;
}

/** Learns the fleet prior from complete histories of other jobs (never the job being optimized). */
export function learnFleetPrior(jobs: readonly FleetJob[]): FleetPrior {
  const families = jobs.flatMap((job) => job.candidates.map((candidate) => instanceFamily(candidate)));
  const space = new FeatureSpace(families);
  const d = space.dimension;
  const summaries = jobs.map(summarize);
  const failure = learnFailurePrior(summaries.map((list) => list as FailureRecord[]));
  const fits: JobFit[] = [];
  summaries.forEach((list, j) => {
    const measured = list
      .filter((summary) => summary.logs.length > 0)
      .map((summary) => ({
        candidate: summary.candidate,
        logRuntime: mean(summary.logs),
        runs: summary.logs.length,
      }));
    if (measured.length < minimumConfigurations) return;
    const rows = measured.map((point) => space.basis(point.candidate));
    const targets = measured.map((point) => point.logRuntime);
    const beta = ridgeFit(rows, targets, d);
    fits.push({
      shipped: jobs[j]?.shipped === true,
      source: jobs[j]?.source ?? `fleet job ${j + 1}`,
      label: jobs[j]?.label ?? jobs[j]?.source ?? `fleet job ${j + 1}`,
      beta,
      measured,
      summaries: list,
      residuals: rows.map((row, i) => (targets[i] as number) - dot(row, beta)),
      noiseVariance: withinConfigurationVariance(list.map((summary) => summary.logs)),
      families: new Set(measured.map((point) => instanceFamily(point.candidate))),
    });
  });
  if (fits.length < 2) {
    return {
      ...uninformedPrior(families),
      failure,
      jobs: fits.length,
      shippedJobs: fits.filter((fit) => fit.shipped).length,
    };
  }
  const meanBeta = Array.from({ length: d }, (_, k) => mean(fits.map((fit) => fit.beta[k] as number)));
  const familyIndex = (family: string) => space.names.indexOf(`family:${family}`);
  // A family coefficient is only learned from the jobs that ran the family; relative to each job's own
  // families so the intercept's share does not leak in.
  const familyEffects = new Map<string, number[]>();
  for (const fit of fits) {
    const centroid = mean([...fit.families].map((family) => fit.beta[familyIndex(family)] as number));
    for (const family of fit.families) {
      const list = familyEffects.get(family) ?? [];
      list.push((fit.beta[familyIndex(family)] as number) - centroid);
      familyEffects.set(family, list);
    }
  }
  const familyMean = new Map([...familyEffects].map(([family, values]) => [family, mean(values)]));
  for (const [family, value] of familyMean) meanBeta[familyIndex(family)] = value;
  // Deviations of the coefficients a job could not learn (families it never ran) count as zero, and
  // each coefficient's row and column is then rescaled to the jobs that did learn it: a positive
  // rescaling of a covariance stays a covariance.
  const learnedBy = space.names.map((name) => fits.filter((fit) => coefficientLearnedBy(name, fit)).length);
  const deviations = fits.map((fit) =>
    space.names.map((name, k) =>
      coefficientLearnedBy(name, fit) ? (fit.beta[k] as number) - (meanBeta[k] as number) : 0,
    ),
  );
  const rescale = learnedBy.map((count) => Math.sqrt((fits.length - 1) / Math.max(1, count - 1)));
  const covariance = identity(d, coefficientJitter);
  for (let a = 1; a < d; a++) {
    for (let b = 1; b < d; b++) {
      let sum = 0;
      for (const deviation of deviations) sum += (deviation[a] as number) * (deviation[b] as number);
      covariance[a]![b]! += (sum / (fits.length - 1)) * (rescale[a] as number) * (rescale[b] as number);
    }
  }
  covariance[0]![0] = interceptVariance;
  const examples = hardwareByFamily(fits);
  const familyTraits = learnFamilyTraitPrior(
    [...familyMean].map(([family, effect]) => ({ hardware: examples.get(family) as Hardware, effect })),
  );
  // A family no fleet job ran has no learned variance: the traits' uncertainty stands in for it.
  for (const family of space.families) {
    const k = familyIndex(family);
    if ((familyEffects.get(family)?.length ?? 0) < 2)
      covariance[k]![k] = Math.max(covariance[k]![k]!, familyTraits.variance);
  }
  const residualVariance = Math.max(1e-4, mean(fits.flatMap((fit) => fit.residuals.map((r) => r * r))));
  const noise = learnNoiseLevels(
    fits.map((fit) => fit.noiseVariance).filter((v): v is number => v !== undefined),
  );
  const medianNoise = noise.variances[Math.floor((noise.variances.length - 1) / 2)] as number;
  const kernel = bestKernelShape(fits, residualVariance, medianNoise);
  const own = fits.filter((fit) => !fit.shipped).length;
  const shippedCount = fits.length - own;
  const shippedShare = own === 0 ? 1 : shippedCount === 0 ? 0 : shippedAnalogShare(own);
  const analogs = fits.map((fit) => {
    const beta = [...fit.beta];
    const centroid = mean([...fit.families].map((family) => fit.beta[familyIndex(family)] as number));
    for (const family of space.families) {
      if (!fit.families.has(family)) beta[familyIndex(family)] = centroid + (familyMean.get(family) ?? 0);
    }
    return new RuntimeAnalog({
      space,
      beta,
      measured: fit.measured,
      failureRates: fit.summaries.map((summary) => ({
        candidate: summary.candidate,
        rate: summary.failures / summary.runs,
      })),
      residualVariance,
      kernel,
      noiseVariance: fit.noiseVariance,
      fallbackNoiseVariance: medianNoise,
      priorWeight: fit.shipped ? shippedShare / shippedCount : (1 - shippedShare) / own,
      source: fit.source,
      label: fit.label,
    });
  });
  const prior: FleetPrior = {
    space,
    mean: meanBeta,
    covariance,
    familyTraits,
    residualVariance,
    kernel,
    noise,
    failure,
    analogs,
    calibration: identityCalibration,
    jobs: fits.length,
    shippedJobs: shippedCount,
  };
  return prior;
}

/** The prior's estimate of a family's coefficient, for families it may not have (their traits decide). */
export function familyPriorOf(prior: FleetPrior, hardware: Hardware): { mean: number; variance: number } {
  const k = prior.space.names.indexOf(`family:${instanceFamily(hardware)}`);
  if (k >= 0) return { mean: prior.mean[k] as number, variance: prior.covariance[k]![k] as number };
  return { mean: familyEffectMean(prior.familyTraits, hardware), variance: prior.familyTraits.variance };
}

function coefficientLearnedBy(name: string, fit: JobFit): boolean {
  return !name.startsWith('family:') || fit.families.has(name.slice('family:'.length));
}

/** The hardware of each family the fits measured: the first configuration measured on it. */
function hardwareByFamily(fits: readonly JobFit[]): Map<string, Hardware> {
  const examples = new Map<string, Hardware>();
  for (const fit of fits) {
    for (const point of fit.measured) {
      const family = instanceFamily(point.candidate);
      if (!examples.has(family)) examples.set(family, point.candidate);
    }
  }
  return examples;
}

/** The kernel search reads at most this many jobs and configurations per job (evenly spaced). */
const kernelSearchJobs = 30;
const kernelSearchPoints = 60;

/** Picks the residual smoothness and family correlation that make the fleet's residuals most likely. */
function bestKernelShape(fits: readonly JobFit[], variance: number, noise: number): ResidualKernelShape {
  let best = defaultKernel;
  let bestLikelihood = Number.NEGATIVE_INFINITY;
  const sets = evenlySpaced(fits, kernelSearchJobs).map((fit) => {
    const chosen = evenlySpaced(
      fit.measured.map((point, i) => ({ point, residual: fit.residuals[i] as number })),
      kernelSearchPoints,
    );
    return {
      points: chosen.map((entry) => configPoint(entry.point.candidate)),
      noise: chosen.map((entry) => (fit.noiseVariance ?? noise) / entry.point.runs),
      residuals: chosen.map((entry) => entry.residual),
    };
  });
  for (const lengthscale of [0.5, 0.75, 1, 1.5, 2, 3]) {
    for (const familyCorrelation of [0.5, 0.8, 0.95]) {
      const shape = { lengthscale, familyCorrelation };
      let total = 0;
      for (const set of sets) {
        const n = set.residuals.length;
        const k = new Matrix(n, n);
        for (let i = 0; i < n; i++) {
          for (let j = 0; j <= i; j++) {
            const value =
              variance * residualCorrelation(set.points[i]!, set.points[j]!, shape) +
              (i === j ? (set.noise[i] as number) + 1e-6 : 0);
            k.set(i, j, value);
            k.set(j, i, value);
          }
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
        best = shape;
      }
    }
  }
  return best;
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

/** The one mean, read as 0 where there is nothing to average (no fit, no family). */
function mean(values: readonly number[]): number {
  return meanOf(values) ?? 0;
}
