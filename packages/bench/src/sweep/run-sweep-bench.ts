import { createRandom, deriveSeed, type Random } from '@setpoint/foundation/random';
import { quantile, rounded } from '@setpoint/foundation/statistics';
import { gpEiPolicy } from 'setpoint/optimizer/baselines/gp-ei-policy';
import { randomPolicy } from 'setpoint/optimizer/baselines/random-policy';
import { stayPolicy } from 'setpoint/optimizer/baselines/stay-policy';
import { learnCalibratedPrior } from 'setpoint/optimizer/calibrated-prior';
import { type FleetJob, type FleetPrior, learnFleetPrior } from 'setpoint/optimizer/fleet-prior';
import type { OptimizerSettings } from 'setpoint/optimizer/recommend';
import type { PredictionClaim, SearchPolicyFactory } from 'setpoint/optimizer/search-policy';
import { setpointPolicy } from 'setpoint/optimizer/setpoint-policy';
import { shippedFleet, shippedFleetSources } from 'setpoint/optimizer/shipped-fleet/shipped-fleet';
import { isLearningRun } from 'setpoint/service/recommender/learning';

/** The sources of the shipped fleet prior, for `--exclude-source` (leave-one-dataset-out). */
export { shippedFleetSources };

import {
  type AfterFirstRecommendation,
  afterFirstRecommendation,
  type LoopEpisode,
} from 'setpoint/demo/after-first-recommendation';
import { evenlySpaced } from 'setpoint/optimizer/evenly-spaced';
import { type Candidate, type Observation, runCostUsd } from 'setpoint/optimizer/types';
import { flooredGpCei, gpCeiPolicy, plainGpCei } from './baselines/gp-cei-policy.js';
import { type CalibrationReport, type ClaimOutcome, calibrationReport } from './calibration.js';
import type { MeasuredConfig, SweepWorkload } from './sweep-dataset.js';
import { share } from './sweep-statistics.js';

export const sweepOptimizerNames = ['setpoint', 'gp-ei', 'gp-cei', 'gp-cei-floor', 'random', 'stay'] as const;
/** What `bench sweep` runs when no optimizers are named (the constrained GPs are asked for by name). */
export const defaultSweepOptimizers = ['setpoint', 'gp-ei', 'random', 'stay'] as const;
export const sweepFleets = ['shipped+dataset', 'dataset', 'shipped'] as const;
export type SweepFleet = (typeof sweepFleets)[number];
export type SweepOptimizerName = (typeof sweepOptimizerNames)[number];

/**
 * Runs after the cold start that count as learning for policies that do not mark their learning runs:
 * the first recommendation and two more, the cautious learning phase Setpoint had before its risk budget.
 */
export const baselineLearningRuns = 3;

/** Budgets at which search progress is reported. */
export const searchCheckpoints = [3, 6, 10] as const;

export interface SweepBenchOptions {
  datasetName: string;
  slaFactors: readonly string[];
  budget: number;
  seeds: number;
  optimizers: readonly SweepOptimizerName[];
  /**
   * For policies that do not say which of their runs are learning runs (the baselines): runs after the
   * cold start that count as learning (excluded from slaViolationRateAfterLearning). Setpoint marks its
   * own learning runs, and those are what its figures count.
   */
  learningRuns?: number;
  /**
   * Which fleet a held-out workload's prior is learned from: the dataset's other workloads (`dataset`),
   * the fleet Setpoint ships (`shipped`: a fresh install), or both (`shipped+dataset`, the default: a
   * fresh install that has also seen the organization's other jobs). Shipped jobs named like a workload
   * of the dataset are left out — the dataset's own copy is used, never the held-out workload itself.
   */
  fleet?: SweepFleet;
  /** Shipped sources to leave out of the fleet (leave-one-dataset-out). */
  excludeSources?: readonly string[];
  /**
   * At most this many cold starts per workload, spread evenly over its configurations (a quicker,
   * deterministic look at large sweeps); every completed configuration when absent.
   */
  maxColdStartsPerWorkload?: number;
  /** gp-cei-floor's floor on P(runtime ≤ SLA) (default `gpCeiFeasibilityFloor`, 0.9; used to study it). */
  feasibilityFloor?: number;
  /** Overrides of Setpoint's optimizer settings (used to study the decision rules). */
  setpointSettings?: Partial<OptimizerSettings>;
  /**
   * Priors learned for earlier runs of the same dataset and fleet, by held-out workload: a study that
   * compares decision rules learns each prior once (it depends on the fleet only, never on the rules).
   */
  priors?: Map<string, FleetPrior>;
  onWorkloadDone?: (workload: string, done: number, total: number) => void;
}

/** One episode: the runs an optimizer made from one cold start (index 0 is the cold start). */
export interface Episode {
  runs: Array<{
    configId: string;
    runtimeS: number;
    costUsd: number;
    completed: boolean;
    claim?: PredictionClaim;
    /** Set by policies that say which runs they take to learn. */
    learning?: boolean;
  }>;
}

interface Outcome {
  coldCost: number;
  coldRuntimeS: number;
  slaSeconds: number;
  optimumCost: number;
  costOf: Map<string, number | undefined>;
}

interface Tally {
  cheaper: boolean[];
  savings: number[];
  violations: boolean[];
  failures: boolean[];
  within110: boolean[][];
  within105: boolean[][];
  runsTo110: number[];
  afterLearningViolations: boolean[];
  learningViolations: boolean[];
  /** Every episode as a team lives through it (`afterFirstRecommendation`). */
  episodes: LoopEpisode[];
  firstClaims: ClaimOutcome[];
  /** The first recommendations that left the cold start's configuration. */
  firstMoveClaims: ClaimOutcome[];
  laterClaims: ClaimOutcome[];
}

function newTally(): Tally {
  return {
    cheaper: [],
    savings: [],
    violations: [],
    failures: [],
    within110: searchCheckpoints.map(() => []),
    within105: searchCheckpoints.map(() => []),
    runsTo110: [],
    afterLearningViolations: [],
    learningViolations: [],
    episodes: [],
    firstClaims: [],
    firstMoveClaims: [],
    laterClaims: [],
  };
}

export interface SweepBenchResult {
  dataset: string;
  /** What Setpoint's prior learned from, e.g. "shipped (synthetic, emulator) + dataset (leave-one-workload-out)". */
  fleet: string;
  workloads: number;
  coldStarts: number;
  perfect: Record<string, { medianSaving: number | null; shareImprovable: number | null }>;
  optimizers: Record<string, Record<string, OptimizerSlaResult>>;
}

export interface OptimizerSlaResult {
  oneShot: {
    shareCheaper: number | null;
    medianSaving: number | null;
    p25Saving: number | null;
    slaViolationRate: number | null;
    failureRate: number | null;
  };
  search: {
    pWithin110: Record<string, number | null>;
    pWithin105: Record<string, number | null>;
    medianRunsToWithin110: number | null;
  };
  slaViolationRateAfterLearning: number | null;
  /**
   * The runs after the first recommendation's own run (runs 3 to the budget): the SLA misses of those the
   * policy took to learn, and the share of them that were learning runs.
   */
  learning: { slaViolationRate: number | null; shareOfRuns: number | null };
  /**
   * Every run after the first recommendation (runs 2 to the budget), learning runs included: the misses, how
   * far runs overran the SLA, and the share of the possible saving the whole episode captured — comparable
   * across policies whatever they call learning.
   */
  afterFirstRecommendation: AfterFirstRecommendation;
  /** `afterFirstRecommendation.slaViolationRate` (runs 3 onward until 2026-12; runs 2 onward since). */
  slaViolationRateAfterFirstRecommendation: number | null;
  /**
   * How the policy's claims came true: the first recommendation, those of them that moved (a run again on
   * the cold start's configuration is judged against an SLA drawn from its mean over every repeat, which
   * one run cannot know), and every later run.
   */
  calibration: { first: CalibrationReport; firstMove: CalibrationReport; later: CalibrationReport };
}

/** Observations a policy may see: only what it ran, with a random repeat when a config was measured more than once. */
export function drawRun(config: MeasuredConfig, random: Random, onlyCompleted = false) {
  const pool = onlyCompleted ? config.runs.filter((run) => run.completed) : config.runs;
  const run = pool[random.int(pool.length)]!;
  return {
    configId: config.candidate.id,
    runtimeS: run.runtimeS,
    costUsd: runCostUsd(config.candidate, run.runtimeS),
    completed: run.completed,
  };
}

const catalogs = new WeakMap<SweepWorkload, Candidate[]>();

/** A workload's candidates, one array per workload: a policy may build its model once for all its episodes. */
function catalogOf(workload: SweepWorkload): Candidate[] {
  let catalog = catalogs.get(workload);
  if (!catalog) {
    catalog = workload.configs.map((config) => config.candidate);
    catalogs.set(workload, catalog);
  }
  return catalog;
}

/** Plays one episode: cold start, then budget − 1 runs chosen by the policy. */
export function playEpisode(
  workload: SweepWorkload,
  coldStart: MeasuredConfig,
  slaSeconds: number,
  budget: number,
  factory: SearchPolicyFactory,
  policyRandom: Random,
  outcomeRandom: Random,
): Episode {
  const byId = new Map(workload.configs.map((config) => [config.candidate.id, config]));
  const candidates = catalogOf(workload);
  const policy = factory({
    candidates,
    slaSeconds,
    coldStartId: coldStart.candidate.id,
    random: policyRandom,
  });
  const runs: Episode['runs'] = [drawRun(coldStart, outcomeRandom, true)];
  const observations: Observation[] = [];
  const toObservation = (run: Episode['runs'][number]): Observation => ({
    candidateId: run.configId,
    runtimeS: run.runtimeS,
    costUsd: run.costUsd,
    completed: run.completed,
  });
  observations.push(toObservation(runs[0]!));
  while (runs.length < budget) {
    const choice = policy.next(observations);
    const config = byId.get(choice.candidateId);
    if (!config) throw new RangeError(`policy chose ${choice.candidateId}, which is not in the catalog`);
    const run = drawRun(config, outcomeRandom);
    runs.push({
      ...run,
      ...(choice.claim ? { claim: choice.claim } : {}),
      ...(choice.learning === undefined ? {} : { learning: choice.learning }),
    });
    observations.push(toObservation(run));
  }
  return { runs };
}

/** The fleet a held-out workload may learn from: every other workload, never itself. */
export function fleetFor(workloads: readonly SweepWorkload[], heldOut: SweepWorkload): FleetJob[] {
  return workloads
    .filter((workload) => workload !== heldOut)
    .map((workload) => ({
      candidates: workload.configs.map((config) => config.candidate),
      observations: workload.configs.flatMap((config) =>
        config.runs.map((run) => ({
          candidateId: config.candidate.id,
          runtimeS: run.runtimeS,
          costUsd: runCostUsd(config.candidate, run.runtimeS),
          completed: run.completed,
        })),
      ),
    }));
}

/** The fleet a held-out workload's prior learns from, by the bench's fleet option. */
export function priorFleetFor(
  workloads: readonly SweepWorkload[],
  heldOut: SweepWorkload,
  options: Pick<SweepBenchOptions, 'fleet' | 'excludeSources'>,
): FleetJob[] {
  const fleet = options.fleet ?? 'shipped+dataset';
  const names = new Set(workloads.map((workload) => workload.name));
  const shipped =
    fleet === 'dataset'
      ? []
      : shippedFleet({ exclude: options.excludeSources ?? [] }).filter(
          (job) => !names.has((job.source ?? '').slice((job.source ?? '').indexOf(':') + 1)),
        );
  return [...shipped, ...(fleet === 'shipped' ? [] : fleetFor(workloads, heldOut))];
}

function describeFleet(
  workloads: readonly SweepWorkload[],
  options: Pick<SweepBenchOptions, 'fleet' | 'excludeSources'>,
): string {
  const fleet = options.fleet ?? 'shipped+dataset';
  const names = new Set(workloads.map((workload) => workload.name));
  const shipped = shippedFleetSources.filter((source) => {
    if (options.excludeSources?.includes(source)) return false;
    const jobs = shippedFleet({ exclude: shippedFleetSources.filter((other) => other !== source) });
    return jobs.some((job) => !names.has((job.source ?? '').slice(source.length + 1)));
  });
  const parts = [];
  if (fleet !== 'dataset') parts.push(`shipped (${shipped.join(', ') || 'none'})`);
  if (fleet !== 'shipped') parts.push('dataset (leave-one-workload-out)');
  return parts.join(' + ');
}

interface PolicySpec {
  factory: SearchPolicyFactory;
  /** Whether it draws random numbers (then it plays every seed even on a dataset without repeats). */
  random: boolean;
  /** Whose random numbers it draws: gp-cei draws gp-ei's, so both make the same random initial runs. */
  randomStream?: SweepOptimizerName;
}

function policyFor(
  name: SweepOptimizerName,
  prior: FleetPrior,
  options: Pick<SweepBenchOptions, 'setpointSettings' | 'feasibilityFloor'>,
): PolicySpec {
  const settings = options.setpointSettings ?? {};
  switch (name) {
    case 'setpoint':
      return { factory: setpointPolicy(prior, settings), random: false };
    case 'gp-ei':
      return { factory: gpEiPolicy, random: true };
    case 'gp-cei':
      return { factory: gpCeiPolicy(plainGpCei), random: true, randomStream: 'gp-ei' };
    case 'gp-cei-floor':
      return {
        factory: gpCeiPolicy({
          ...flooredGpCei,
          feasibilityFloor: options.feasibilityFloor ?? flooredGpCei.feasibilityFloor,
        }),
        random: false,
      };
    case 'random':
      return { factory: randomPolicy, random: true };
    case 'stay':
      return { factory: stayPolicy, random: false };
  }
}

const costTolerance = 1e-9;

function scoreEpisode(
  episode: Episode,
  outcome: Outcome,
  tally: Tally,
  budget: number,
  learningRuns: number,
): void {
  const recommended = episode.runs[1];
  if (recommended) {
    const cheaper = recommended.completed && recommended.costUsd < outcome.coldCost * (1 - costTolerance);
    tally.cheaper.push(cheaper);
    tally.savings.push(
      recommended.completed
        ? 1 - recommended.costUsd / outcome.coldCost
        : -recommended.costUsd / outcome.coldCost,
    );
    tally.violations.push(!recommended.completed || recommended.runtimeS > outcome.slaSeconds);
    tally.failures.push(!recommended.completed);
  }
  let bestCost = Number.POSITIVE_INFINITY;
  let runsTo110 = Number.POSITIVE_INFINITY;
  const bestAfter: number[] = [];
  episode.runs.forEach((run, i) => {
    if (run.completed && run.runtimeS <= outcome.slaSeconds) {
      bestCost = Math.min(bestCost, outcome.costOf.get(run.configId) ?? run.costUsd);
    }
    bestAfter.push(bestCost);
    if (
      runsTo110 === Number.POSITIVE_INFINITY &&
      bestCost <= outcome.optimumCost * 1.1 * (1 + costTolerance)
    ) {
      runsTo110 = i + 1;
    }
    const missed = !run.completed || run.runtimeS > outcome.slaSeconds;
    if (i >= 2) {
      (isLearningRun(run.learning, i, learningRuns)
        ? tally.learningViolations
        : tally.afterLearningViolations
      ).push(missed);
    }
    if (run.claim && i >= 1) {
      const claimOutcome: ClaimOutcome = {
        claim: run.claim,
        metSla: run.completed && run.runtimeS <= outcome.slaSeconds,
        insideInterval:
          run.completed && run.runtimeS >= run.claim.runtimeLowS && run.runtimeS <= run.claim.runtimeHighS,
      };
      (i === 1 ? tally.firstClaims : tally.laterClaims).push(claimOutcome);
      if (i === 1 && run.configId !== episode.runs[0]?.configId) tally.firstMoveClaims.push(claimOutcome);
    }
  });
  tally.episodes.push(
    episode.runs.map((run) => ({
      runtime: run.runtimeS,
      completed: run.completed,
      slaTime: outcome.slaSeconds,
      costUsd: run.costUsd,
      coldCostUsd: outcome.coldCost,
      coldRuntime: outcome.coldRuntimeS,
      optimumCostUsd: outcome.optimumCost,
    })),
  );
  tally.runsTo110.push(runsTo110);
  searchCheckpoints.forEach((k, c) => {
    if (k > budget) return;
    const best = bestAfter[k - 1] ?? Number.POSITIVE_INFINITY;
    tally.within110[c]!.push(best <= outcome.optimumCost * 1.1 * (1 + costTolerance));
    tally.within105[c]!.push(best <= outcome.optimumCost * 1.05 * (1 + costTolerance));
  });
}

function summarizeTally(tally: Tally, budget: number): OptimizerSlaResult {
  const median110 = quantile(tally.runsTo110, 0.5);
  const everyRun = afterFirstRecommendation(tally.episodes);
  const perCheckpoint = (lists: boolean[][]) =>
    Object.fromEntries(
      searchCheckpoints.map((k, c) => [String(k), k > budget ? null : rounded(share(lists[c]!))]),
    );
  return {
    oneShot: {
      shareCheaper: rounded(share(tally.cheaper)),
      medianSaving: rounded(quantile(tally.savings, 0.5)),
      p25Saving: rounded(quantile(tally.savings, 0.25)),
      slaViolationRate: rounded(share(tally.violations)),
      failureRate: rounded(share(tally.failures)),
    },
    search: {
      pWithin110: perCheckpoint(tally.within110),
      pWithin105: perCheckpoint(tally.within105),
      medianRunsToWithin110: median110 <= budget ? rounded(median110) : null,
    },
    slaViolationRateAfterLearning: rounded(share(tally.afterLearningViolations)),
    learning: {
      slaViolationRate: rounded(share(tally.learningViolations)),
      shareOfRuns: rounded(
        tally.learningViolations.length /
          Math.max(1, tally.learningViolations.length + tally.afterLearningViolations.length),
      ),
    },
    afterFirstRecommendation: everyRun,
    slaViolationRateAfterFirstRecommendation: everyRun.slaViolationRate,
    calibration: {
      first: calibrationReport(tally.firstClaims),
      firstMove: calibrationReport(tally.firstMoveClaims),
      later: calibrationReport(tally.laterClaims),
    },
  };
}

/**
 * Replays a sweep dataset: every completed configuration of every workload is a cold start, the SLA is
 * s × its mean runtime, and each optimizer (with a fleet prior learned from the other workloads only)
 * chooses budget − 1 further runs. Deterministic for a given seed count.
 */
export function runSweepBench(
  workloads: readonly SweepWorkload[],
  options: SweepBenchOptions,
): SweepBenchResult {
  const learningRuns = options.learningRuns ?? baselineLearningRuns;
  const hasRepeats = workloads.some((workload) => workload.configs.some((config) => config.runs.length > 1));
  const tallies = new Map<string, Tally>();
  const perfectSavings = new Map<string, number[]>();
  const tallyOf = (name: string, sla: string) => {
    const key = `${name}\u0000${sla}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = newTally();
      tallies.set(key, tally);
    }
    return tally;
  };
  let coldStarts = 0;
  workloads.forEach((workload, workloadIndex) => {
    const prior = options.optimizers.includes('setpoint')
      ? (options.priors?.get(workload.name) ??
        learnCalibratedPrior(priorFleetFor(workloads, workload, options)))
      : learnFleetPrior([]);
    options.priors?.set(workload.name, prior);
    const policies = options.optimizers.map((name) => ({
      name,
      ...policyFor(name, prior, options),
    }));
    const starts = evenlySpaced(
      workload.configs.filter((config) => config.meanRuntimeS !== undefined),
      options.maxColdStartsPerWorkload,
    );
    coldStarts += starts.length;
    const costOf = new Map(workload.configs.map((config) => [config.candidate.id, config.meanCostUsd]));
    for (const slaText of options.slaFactors) {
      const factor = Number(slaText);
      for (const start of starts) {
        const slaSeconds = factor * (start.meanRuntimeS as number);
        const coldCost = start.meanCostUsd as number;
        let optimumCost = coldCost;
        for (const config of workload.configs) {
          if (config.meanRuntimeS !== undefined && config.meanRuntimeS <= slaSeconds) {
            optimumCost = Math.min(optimumCost, config.meanCostUsd as number);
          }
        }
        const saving = perfectSavings.get(slaText) ?? [];
        saving.push(1 - optimumCost / coldCost);
        perfectSavings.set(slaText, saving);
        const outcome: Outcome = {
          coldCost,
          coldRuntimeS: start.meanRuntimeS as number,
          slaSeconds,
          optimumCost,
          costOf,
        };
        for (const policy of policies) {
          const seeds = policy.random || hasRepeats ? options.seeds : 1;
          for (let seed = 0; seed < seeds; seed++) {
            const parts = [seed, workload.name, start.candidate.id, slaText];
            const episode = playEpisode(
              workload,
              start,
              slaSeconds,
              options.budget,
              policy.factory,
              createRandom(deriveSeed(...parts, policy.randomStream ?? policy.name)),
              createRandom(deriveSeed(...parts, 'outcomes')),
            );
            scoreEpisode(episode, outcome, tallyOf(policy.name, slaText), options.budget, learningRuns);
          }
        }
      }
    }
    options.onWorkloadDone?.(workload.name, workloadIndex + 1, workloads.length);
  });
  return {
    dataset: options.datasetName,
    fleet: describeFleet(workloads, options),
    workloads: workloads.length,
    coldStarts,
    perfect: Object.fromEntries(
      options.slaFactors.map((sla) => {
        const savings = perfectSavings.get(sla) ?? [];
        return [
          sla,
          {
            medianSaving: rounded(quantile(savings, 0.5)),
            shareImprovable: rounded(share(savings.map((value) => value > costTolerance))),
          },
        ];
      }),
    ),
    optimizers: Object.fromEntries(
      options.optimizers.map((name) => [
        name,
        Object.fromEntries(
          options.slaFactors.map((sla) => [sla, summarizeTally(tallyOf(name, sla), options.budget)]),
        ),
      ]),
    ),
  };
}
