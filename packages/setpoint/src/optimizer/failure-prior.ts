import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { totalMemoryGib } from './config-features.js';
import type { Candidate } from './types.js';

/**
 * How often a configuration fails (out of memory, or killed) given that another one worked, learned
 * from the fleet. Two parts:
 *
 * - **What the fleet's jobs did** on the same memory shapes (memory per core: what one Spark task may
 *   use before it spills or dies; total memory: what the working set may occupy), binned at half a
 *   power of two: among the fleet jobs that worked on the reference shape and ran the candidate's, the
 *   share that failed there. A memory need is a property of the job, and the fleet shows how common
 *   each need is — a Spark sort that needs 4 GiB per core is as rare here as in the fleet.
 * - **A logistic model** of the memory given up (per core and in total, log2) for shapes the fleet
 *   never ran, and as the pseudo-count that keeps a thin table honest.
 */
export interface FailurePrior {
  /** Intercept, log2 of the per-core memory shortfall, log2 of the total memory shortfall. */
  coefficients: [number, number, number];
  /** Failure rate of a configuration with at least the memory of one that worked. */
  baseRate: number;
  /** Per fleet job: memory shape → runs and failures there. */
  shapes: ReadonlyArray<ReadonlyMap<string, ShapeRecord>>;
}

export interface ShapeRecord {
  runs: number;
  failures: number;
}

export const defaultFailurePrior: FailurePrior = {
  coefficients: [-3.9, 1.6, 1.2],
  baseRate: 0.02,
  shapes: [],
};

/** Fleet jobs the table must hold for a shape pair before it speaks with the weight of this many jobs. */
const logisticPseudoJobs = 2;

function memoryPerCore(candidate: Candidate): number {
  return candidate.memoryGibPerNode / candidate.vcpusPerNode;
}

/** Memory per core and total memory, each rounded to half a power of two. */
export function memoryShape(candidate: Candidate): string {
  const bin = (value: number) => Math.round(Math.log2(value) * 2);
  return `${bin(memoryPerCore(candidate))}:${bin(totalMemoryGib(candidate))}`;
}

/** The logistic model's inputs for `candidate` against a configuration that worked. */
export function memoryShortfall(candidate: Candidate, worked: Candidate): [number, number] {
  return [
    Math.max(0, Math.log2(memoryPerCore(worked) / memoryPerCore(candidate))),
    Math.max(0, Math.log2(totalMemoryGib(worked) / totalMemoryGib(candidate))),
  ];
}

export function failureFromShortfall(prior: FailurePrior, shortfall: readonly [number, number]): number {
  if (shortfall[0] <= 0 && shortfall[1] <= 0) return prior.baseRate;
  const [b0, b1, b2] = prior.coefficients;
  const z = b0 + b1 * shortfall[0] + b2 * shortfall[1];
  return Math.max(prior.baseRate, 1 / (1 + Math.exp(-z)));
}

/**
 * P(a run on `candidate` fails | a run on `worked` completed): the fleet's jobs on the same two memory
 * shapes, with the logistic model as a prior worth two jobs.
 */
export function conditionalFailure(prior: FailurePrior, candidate: Candidate, worked: Candidate): number {
  const shortfall = memoryShortfall(candidate, worked);
  const model = failureFromShortfall(prior, shortfall);
  if (shortfall[0] <= 0 && shortfall[1] <= 0) return model;
  const target = memoryShape(candidate);
  const reference = memoryShape(worked);
  let failures = 0;
  let jobs = 0;
  for (const shapes of prior.shapes) {
    const there = shapes.get(target);
    const base = shapes.get(reference);
    if (!there || !base || base.failures * 2 > base.runs) continue;
    failures += there.failures / there.runs;
    jobs += 1;
  }
  return Math.max(prior.baseRate, (failures + logisticPseudoJobs * model) / (jobs + logisticPseudoJobs));
}

/** One configuration of a fleet job: how many runs, how many failed. */
export interface FailureRecord {
  candidate: Candidate;
  runs: number;
  failures: number;
}

const referencesPerJob = 12;

/**
 * Learns the failure prior from every fleet job: its runs per memory shape, and a logistic fit in which
 * each configuration that always worked is a reference and every other configuration of the job is a
 * case (its failure share against its shortfall). Every job counts the same; a job contributes at most
 * a dozen references.
 */
export function learnFailurePrior(jobs: ReadonlyArray<readonly FailureRecord[]>): FailurePrior {
  const rows: Array<{ x: [number, number, number]; y: number; weight: number }> = [];
  let baseFailures = 0;
  let baseCases = 0;
  const shapes = jobs.map((records) => {
    const byShape = new Map<string, ShapeRecord>();
    for (const record of records) {
      if (record.runs === 0) continue;
      const key = memoryShape(record.candidate);
      const entry = byShape.get(key) ?? { runs: 0, failures: 0 };
      entry.runs += record.runs;
      entry.failures += record.failures;
      byShape.set(key, entry);
    }
    return byShape;
  });
  for (const records of jobs) {
    const references = records.filter((record) => record.runs > 0 && record.failures === 0);
    if (references.length === 0) continue;
    const step = Math.max(1, Math.floor(references.length / referencesPerJob));
    const chosen = references.filter((_, i) => i % step === 0).slice(0, referencesPerJob);
    const weight = 1 / (chosen.length * Math.max(1, records.length - 1));
    for (const reference of chosen) {
      for (const record of records) {
        if (record === reference || record.runs === 0) continue;
        const [perCore, total] = memoryShortfall(record.candidate, reference.candidate);
        const share = record.failures / record.runs;
        if (perCore <= 0 && total <= 0) {
          baseFailures += share * weight;
          baseCases += weight;
          continue;
        }
        rows.push({ x: [1, perCore, total], y: share, weight });
      }
    }
  }
  // A pseudo-count of half a failure in fifty cases keeps the base rate off zero.
  const baseRate = Math.min(0.2, (baseFailures + 0.01) / (baseCases + 0.5));
  if (rows.length < 20) return { ...defaultFailurePrior, baseRate, shapes };
  return { coefficients: fitLogistic(rows), baseRate, shapes };
}

/** Weighted logistic regression by Newton's method, with a small ridge toward the default model. */
function fitLogistic(rows: ReadonlyArray<{ x: [number, number, number]; y: number; weight: number }>) {
  let beta = [...defaultFailurePrior.coefficients];
  const ridge = 0.5;
  for (let iteration = 0; iteration < 30; iteration++) {
    const hessian = Matrix.eye(3).mul(ridge);
    const gradient = new Matrix(3, 1);
    for (let a = 0; a < 3; a++) {
      gradient.set(a, 0, -ridge * ((beta[a] as number) - (defaultFailurePrior.coefficients[a] as number)));
    }
    for (const { x, y, weight } of rows) {
      const z = x[0] * beta[0]! + x[1] * beta[1]! + x[2] * beta[2]!;
      const p = 1 / (1 + Math.exp(-z));
      for (let a = 0; a < 3; a++) {
        gradient.set(a, 0, gradient.get(a, 0) + weight * (y - p) * x[a]!);
        for (let b = 0; b <= a; b++) {
          const value = hessian.get(a, b) + weight * p * (1 - p) * x[a]! * x[b]!;
          hessian.set(a, b, value);
          if (a !== b) hessian.set(b, a, value);
        }
      }
    }
    const step = new CholeskyDecomposition(hessian).solve(gradient);
    beta = beta.map((value, a) => value + step.get(a, 0));
    if (Math.abs(step.get(0, 0)) + Math.abs(step.get(1, 0)) + Math.abs(step.get(2, 0)) < 1e-6) break;
  }
  return beta as [number, number, number];
}
