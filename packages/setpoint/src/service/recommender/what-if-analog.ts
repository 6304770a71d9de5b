import { countOf } from '@setpoint/foundation/words';
import { Matrix, solve } from 'ml-matrix';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { FleetPrior } from '../../optimizer/fleet-prior.js';
import { RuntimeAnalog } from '../../optimizer/runtime-analog.js';
import type { Candidate } from '../../optimizer/types.js';
import { runName } from '../runs/run-name.js';
import type { RecommenderRun } from './recommender-run.js';
import { runCompleted, runtimeSecondsOf } from './run-evidence.js';

const minutes = (seconds: number) => (seconds / 60).toFixed(1);

export interface WhatIfSummary {
  text: string;
}

/**
 * The based-on run's what-if replay as a runtime surface of this very job over worker counts on its own
 * node type: the model borrows its scale-out shape, as it borrows fleet jobs' shapes.
 */
export function whatIfAnalog(
  prior: FleetPrior,
  /** The candidate of the configuration the run used. */
  base: Candidate | undefined,
  run: RecommenderRun,
): { model: RuntimeAnalog; summary: WhatIfSummary } | undefined {
  if (!runCompleted(run)) return undefined;
  const observed = run.profile.whatIf.find((point) => point.observed);
  if (!base || !observed || observed.estimatedDurationMs <= 0) return undefined;
  const runtimeS = runtimeSecondsOf(run.profile);
  const measured = run.profile.whatIf
    .filter((point) => point.estimatedDurationMs > 0)
    .map((point) => {
      const candidate: Candidate = { ...base, id: `what-if:${point.executors}`, nodes: point.executors };
      return {
        candidate,
        logRuntime: Math.log((runtimeS * point.estimatedDurationMs) / observed.estimatedDurationMs),
      };
    });
  if (measured.length < 2) return undefined;
  const model = new RuntimeAnalog({
    space: prior.space,
    beta: fitScaleOut(prior, measured),
    measured: measured.map((entry) => ({ ...entry, runs: 1 })),
    failureRates: [],
    residualVariance: prior.residualVariance,
    kernel: prior.kernel,
    noiseVariance: undefined,
    fallbackNoiseVariance: prior.noise.variances[0] ?? 1e-4,
    priorWeight: 1 / Math.max(1, prior.analogs.length),
    source: `run:${run.id}`,
    label: `the replay of ${runName(run)}`,
    ownJob: true,
  });
  const widest = run.profile.whatIf.at(-1) as (typeof run.profile.whatIf)[number];
  const dominant = dominantStage(run.profile);
  const stageText = dominant
    ? `stage ${dominant.stageId} holds ${Math.round(dominant.share * 100)}% of task time (${countOf(dominant.tasks, 'task')}); `
    : '';
  return {
    model,
    summary: {
      text:
        `${stageText}replaying the tasks of ${runName(run)} on ${countOf(widest.executors, 'worker')} predicts ` +
        `${minutes(widest.estimatedDurationMs / 1000)} min vs ${minutes(observed.estimatedDurationMs / 1000)} min on ${observed.executors}`,
    },
  };
}

/** Scale-out terms of the fit over cores (Ernest's work/cores and its curvature) on the replayed points. */
const scaleOutTerms = ['intercept', 'log2Cores', 'log2CoresSquared'];

/**
 * The prior's coefficients with the intercept and the cores terms least-squares fitted to the replay, so
 * the surface carries the job's own level and scale-out slope to node sizes the replay did not cover.
 */
function fitScaleOut(
  prior: FleetPrior,
  measured: ReadonlyArray<{ candidate: Candidate; logRuntime: number }>,
): number[] {
  const beta = [...prior.mean];
  const distinct = new Set(measured.map((entry) => entry.candidate.nodes)).size;
  const terms = scaleOutTerms.slice(0, Math.min(scaleOutTerms.length, distinct));
  const indices = terms.map((name) => prior.space.names.indexOf(name));
  const rows = measured.map((entry) => prior.space.basis(entry.candidate));
  const targets = measured.map((entry, i) => {
    const row = rows[i] as Float64Array;
    let fixed = 0;
    for (let k = 0; k < row.length; k++)
      if (!indices.includes(k)) fixed += (row[k] as number) * (beta[k] as number);
    return entry.logRuntime - fixed;
  });
  const design = new Matrix(rows.map((row) => indices.map((k) => row[k] as number)));
  const ridge = Matrix.eye(indices.length).mul(1e-6);
  const normal = design.transpose().mmul(design).add(ridge);
  const solution = solve(normal, design.transpose().mmul(Matrix.columnVector(targets)));
  indices.forEach((k, i) => {
    beta[k] = solution.get(i, 0);
  });
  return beta;
}

function dominantStage(profile: ModelProfile): { stageId: number; share: number; tasks: number } | undefined {
  const total = profile.stages.reduce((sum, stage) => sum + stage.executorRunTimeMs, 0);
  if (total <= 0) return undefined;
  let best = profile.stages[0];
  for (const stage of profile.stages)
    if (stage.executorRunTimeMs > (best?.executorRunTimeMs ?? 0)) best = stage;
  return best
    ? { stageId: best.stageId, share: best.executorRunTimeMs / total, tasks: best.numTasks }
    : undefined;
}
