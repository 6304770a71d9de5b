import type { RunProfile } from '../../eventlog/run-profile.js';
import type { RecommenderRun } from './recommender.js';
import { inputBytesOf, runCompleted, runtimeSecondsOf } from './run-evidence.js';

/** When the job changed so much that earlier runs no longer describe it. */
export interface RebaseSettings {
  /** Input size outside [min ÷ this, max × this] of the runs since the last rebase. */
  inputGrowthFactor: number;
  /** Total task count outside [min ÷ this, max × this] while the input size stayed within range. */
  taskCountFactor: number;
  /** Runtime on an already-run configuration off its earlier mean by more than this fraction. */
  runtimeAnomaly: number;
}

export const defaultRebaseSettings: RebaseSettings = {
  inputGrowthFactor: 1.5,
  taskCountFactor: 1.5,
  runtimeAnomaly: 0.3,
};

export interface Segment {
  start: number;
  reason: string;
}

function stageNames(profile: RunProfile): string {
  return profile.stages
    .map((stage) => stage.name)
    .sort()
    .join('\u0000');
}

/**
 * Where the runs that still describe the job begin: a run starts a new segment when its stage structure
 * differs, its input size or task count leaves the range seen since the last rebase, or it ran on an
 * already-run configuration with a runtime far off the earlier runs there.
 */
export function segmentSinceRebase(
  runs: readonly RecommenderRun[],
  /** The candidate id of the configuration each run used. */
  configurationIds: readonly string[],
  settings: RebaseSettings,
): Segment {
  let start = 0;
  let reason = '';
  for (let i = 1; i < runs.length; i++) {
    const run = runs[i] as RecommenderRun;
    const seen = runs.slice(start, i);
    const change = changeOf(
      run,
      configurationIds[i] as string,
      seen,
      configurationIds.slice(start, i),
      settings,
    );
    if (change) {
      start = i;
      reason = change;
    }
  }
  return { start, reason };
}

function changeOf(
  run: RecommenderRun,
  id: string,
  seen: readonly RecommenderRun[],
  seenIds: readonly string[],
  settings: RebaseSettings,
): string | null {
  const completedSeen = seen.filter(runCompleted);
  const sameConfig = seen.filter((entry, i) => runCompleted(entry) && seenIds[i] === id);
  if (!runCompleted(run) || completedSeen.length === 0) return null;
  const reference = completedSeen.at(-1) as RecommenderRun;
  if (stageNames(run.profile) !== stageNames(reference.profile)) {
    return `the stage structure changed (${reference.profile.stages.length} → ${run.profile.stages.length} stages)`;
  }
  const inputs = completedSeen.map(inputBytesOf).filter((bytes) => bytes > 0);
  const input = inputBytesOf(run);
  if (inputs.length > 0 && input > 0) {
    const low = Math.min(...inputs) / settings.inputGrowthFactor;
    const high = Math.max(...inputs) * settings.inputGrowthFactor;
    if (input < low || input > high) {
      return `the input moved to ${gib(input)} GiB, outside the ${gib(Math.min(...inputs))}–${gib(Math.max(...inputs))} GiB seen`;
    }
  }
  const tasks = completedSeen.map((entry) => entry.profile.totals.tasks);
  const runTasks = run.profile.totals.tasks;
  if (
    runTasks < Math.min(...tasks) / settings.taskCountFactor ||
    runTasks > Math.max(...tasks) * settings.taskCountFactor
  ) {
    return `the task count moved to ${runTasks}, outside the ${Math.min(...tasks)}–${Math.max(...tasks)} seen`;
  }
  if (sameConfig.length > 0) {
    const perByte = (entry: RecommenderRun) =>
      runtimeSecondsOf(entry.profile) / Math.max(1, inputBytesOf(entry));
    const expected = sameConfig.reduce((sum, entry) => sum + perByte(entry), 0) / sameConfig.length;
    const deviation = perByte(run) / expected - 1;
    if (Math.abs(deviation) > settings.runtimeAnomaly) {
      return `the runtime on an unchanged configuration moved ${signedPercent(deviation)} from its earlier runs`;
    }
  }
  return null;
}

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
const signedPercent = (fraction: number) => `${fraction >= 0 ? '+' : ''}${Math.round(fraction * 100)}%`;
