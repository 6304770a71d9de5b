import type { SummarizedConfiguration } from '../../optimizer/observed-configurations.js';
import { type RebaseSettings, type SegmentState, SegmentSummary } from './rebase.js';
import type { RecommenderRun } from './recommender-run.js';
import { inputBytesOf, runCompleted, runtimeSecondsOf } from './run-evidence.js';

/** Count, sum and sum of squares of one quantity over runs: adds run by run, merges by addition. */
export interface LogTotals {
  runs: number;
  sum: number;
  sumSquares: number;
}

/**
 * One configuration's completed runs that left the window. Observations scale a run's runtime by
 * latestInput ÷ input (`observationOf`), so runs with an input size keep ln(runtime) − ln(input) and the
 * shift by ln(latestInput) is made exactly when a recommendation reads them; runs without one keep
 * ln(runtime), as observations leave them unscaled.
 */
export interface ConfigurationTotals {
  sized: LogTotals;
  unsized: LogTotals;
}

/** What folding carries from page to page: the totals since the last rebase and what the segment saw. */
export interface FoldedStatistics {
  /** Per candidate id. */
  configurations: Record<string, ConfigurationTotals>;
  segment: SegmentState;
}

export const emptyFoldedStatistics = (): FoldedStatistics => ({
  configurations: {},
  segment: new SegmentSummary().state(),
});

const emptyTotals = (): LogTotals => ({ runs: 0, sum: 0, sumSquares: 0 });

function added(totals: LogTotals, value: number): LogTotals {
  return { runs: totals.runs + 1, sum: totals.sum + value, sumSquares: totals.sumSquares + value * value };
}

/**
 * Adds runs (oldest first, each with its candidate id) to folded statistics, detecting rebases exactly as
 * `segmentSinceRebase` does over the same runs: a rebase among them drops the totals before it, so the
 * result holds only the segment the last of them belongs to. Pure; the input is not changed.
 */
export function foldRuns(
  folded: FoldedStatistics,
  runs: readonly RecommenderRun[],
  configurationIds: readonly string[],
  settings: RebaseSettings,
): FoldedStatistics {
  let seen = SegmentSummary.fromState(folded.segment);
  let configurations: Record<string, ConfigurationTotals> = { ...folded.configurations };
  for (const [i, run] of runs.entries()) {
    const id = configurationIds[i] as string;
    if (seen.changeOf(run, id, settings)) {
      seen = new SegmentSummary();
      configurations = {};
    }
    seen.add(run, id);
    const runtime = runtimeSecondsOf(run.profile);
    // what `observedConfigurations` keeps: completed runs with a runtime
    if (!runCompleted(run) || !(runtime > 0)) continue;
    const input = inputBytesOf(run);
    const entry = configurations[id] ?? { sized: emptyTotals(), unsized: emptyTotals() };
    configurations[id] =
      input > 0
        ? { ...entry, sized: added(entry.sized, Math.log(runtime) - Math.log(input)) }
        : { ...entry, unsized: added(entry.unsized, Math.log(runtime)) };
  }
  return { configurations, segment: seen.state() };
}

/**
 * The totals as the runtime model reads them for a recommendation whose based-on run read
 * `latestInputBytes`: sized runs shifted by ln(latestInputBytes), like their observations would be. When
 * the based-on run has no input size, observations are not scaled but sized totals cannot be unscaled:
 * they are left out (the window's runs still teach the model).
 */
export function summarizedConfigurations(
  configurations: Readonly<Record<string, ConfigurationTotals>>,
  latestInputBytes: number,
): SummarizedConfiguration[] {
  const shift = latestInputBytes > 0 ? Math.log(latestInputBytes) : null;
  const result: SummarizedConfiguration[] = [];
  for (const [candidateId, { sized, unsized }] of Object.entries(configurations)) {
    let runs = unsized.runs;
    let sumLog = unsized.sum;
    let sumSquaresLog = unsized.sumSquares;
    if (shift !== null && sized.runs > 0) {
      runs += sized.runs;
      sumLog += sized.sum + sized.runs * shift;
      sumSquaresLog += sized.sumSquares + 2 * shift * sized.sum + sized.runs * shift * shift;
    }
    if (runs > 0) result.push({ candidateId, runs, sumLog, sumSquaresLog });
  }
  return result;
}
