import { quantile, rounded } from '@setpoint/foundation/statistics';

/**
 * One run of a closed loop as a team lives through it: what it took against the SLA and what it cost
 * against the job left alone and against the best it could have been.
 */
export interface LoopRun {
  /** The run's runtime (seconds or minutes: the same unit as `slaTime`); a failed run's time until it failed. */
  runtime: number;
  completed: boolean;
  slaTime: number;
  costUsd: number;
  /** What the cold-start configuration costs for this run (same data, same noise where known). */
  coldCostUsd: number;
  /** What the cold start takes for this run: a failed run is paid for and run again there. */
  coldRuntime: number;
  /**
   * What the cheapest configuration that meets the SLA costs for this run, known in hindsight (null when
   * the bench cannot know it).
   */
  optimumCostUsd: number | null;
}

/** One closed loop: index 0 is the cold start, index 1 the run the first recommendation configured. */
export type LoopEpisode = readonly LoopRun[];

/**
 * Every run after the first recommendation, learning runs included (runs 2 to N, the first recommendation's
 * own run among them): what a team lives through, whatever Setpoint calls a run.
 */
export interface AfterFirstRecommendation {
  runs: number;
  /** Share of those runs that failed or took longer than the SLA. */
  slaViolationRate: number | null;
  /**
   * Runtime ÷ SLA over those runs. A failed run counts as its own time plus a rerun on the cold start's
   * configuration, the way a team recovers it.
   */
  runtimeOverSla: { p50: number | null; p95: number | null; p99: number | null; max: number | null };
  /**
   * Over whole episodes (runs 1..N, the cold start included): (Σ cold-start cost − Σ cost) ÷ (Σ cold-start
   * cost − Σ cost of the cheapest configuration meeting the SLA, known in hindsight). Each episode's sums
   * are divided by its cold start's cost, so a dear job does not outweigh a cheap one; a failed run costs
   * what it cost plus a rerun on the cold start. 1: every run at the optimum; 0: no better than staying;
   * below 0: the search cost more than it saved. Null when no episode has a known optimum.
   */
  capturedSaving: number | null;
  /**
   * Over whole episodes (runs 1..N, the cold start included): (Σ cold-start cost − Σ cost) ÷ Σ cold-start
   * cost, each episode scaled by its cold start as above. What the team saved, whatever the optimum:
   * `capturedSaving`'s optimum is the cheapest of a candidate space, so a change to the space moves it.
   */
  savingVsColdStart: number | null;
}

const missed = (run: LoopRun) => !run.completed || run.runtime > run.slaTime;

/** A run's runtime ÷ SLA; a failed run is run again on the cold start's configuration. */
export function runtimeOverSla(run: LoopRun): number {
  return (run.completed ? run.runtime : run.runtime + run.coldRuntime) / run.slaTime;
}

/** What a run cost the team: a failed run is paid for and run again on the cold start's configuration. */
export function costWithRerun(run: { costUsd: number; completed: boolean }, coldCostUsd: number): number {
  return run.completed ? run.costUsd : run.costUsd + coldCostUsd;
}

export function afterFirstRecommendation(episodes: readonly LoopEpisode[]): AfterFirstRecommendation {
  const after = episodes.flatMap((episode) => episode.slice(1));
  const ratios = after.map(runtimeOverSla);
  let captured = 0;
  let possible = 0;
  let saved = 0;
  let spentCold = 0;
  for (const episode of episodes) {
    const scale = episode.reduce((sum, run) => sum + run.coldCostUsd, 0) / episode.length;
    if (episode.length === 0 || !(scale > 0)) continue;
    const savedInEpisode = episode.reduce(
      (sum, run) => sum + (run.coldCostUsd - costWithRerun(run, run.coldCostUsd)) / scale,
      0,
    );
    saved += savedInEpisode;
    spentCold += episode.length;
    if (episode.some((run) => run.optimumCostUsd === null)) continue;
    captured += savedInEpisode;
    for (const run of episode) possible += (run.coldCostUsd - (run.optimumCostUsd as number)) / scale;
  }
  const at = (q: number) => rounded(quantile(ratios, q));
  return {
    runs: after.length,
    slaViolationRate: after.length === 0 ? null : rounded(after.filter(missed).length / after.length),
    runtimeOverSla: {
      p50: at(0.5),
      p95: at(0.95),
      p99: at(0.99),
      max: ratios.length === 0 ? null : rounded(Math.max(...ratios)),
    },
    capturedSaving: possible > 0 ? rounded(captured / possible) : null,
    savingVsColdStart: spentCold > 0 ? rounded(saved / spentCold) : null,
  };
}
