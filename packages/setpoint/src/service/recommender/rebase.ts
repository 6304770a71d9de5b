import { type ModelProfile, maxModelStages } from '../../eventlog/model-profile.js';
import type { RecommenderRun } from './recommender-run.js';
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

interface StageStructure {
  /** Stage names in profile order (what a change's message names). */
  names: string[];
  /** Stage attempts of the run: more than `names` when the model profile lists only some of them. */
  count: number;
  /**
   * What two runs compare: the names, order-free; only the count for a run with more stages than a model
   * profile lists (whichever of them were listed, as for a reference kept before profiles were capped).
   */
  key: string;
}

function referenceOf(names: readonly string[], count = names.length): StageStructure {
  const key = count > maxModelStages ? `${count} stages` : [...names].sort().join('\u0000');
  return { names: [...names], count, key };
}

function structureOf(profile: Pick<ModelProfile, 'stages' | 'stageCount'>): StageStructure {
  return referenceOf(
    profile.stages.map((stage) => stage.name),
    profile.stageCount,
  );
}

/**
 * Where the runs that still describe the job begin: a run starts a new segment when its stage structure
 * differs, its input size or task count leaves the range seen since the last rebase, or it ran on an
 * already-run configuration with a runtime far off the earlier runs there. One pass over the runs: what
 * the segment has seen so far is kept as running ranges and sums (a window of hundreds of runs is read on
 * every recommendation, on the service's event loop). `earlier` is what the segment had seen before the
 * first run (runs folded into the project's learning summary): then the first run can start a segment
 * too, and a segment with no reason reaches back before the first run.
 */
export function segmentSinceRebase(
  runs: readonly RecommenderRun[],
  /** The candidate id of the configuration each run used. */
  configurationIds: readonly string[],
  settings: RebaseSettings,
  earlier?: SegmentState,
): Segment {
  let start = 0;
  let reason = '';
  let seen = earlier ? SegmentSummary.fromState(earlier) : new SegmentSummary();
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i] as RecommenderRun;
    const id = configurationIds[i] as string;
    // an empty summary (the first run without `earlier`) sees no change
    const change = seen.changeOf(run, id, settings);
    if (change) {
      start = i;
      reason = change;
      seen = new SegmentSummary();
    }
    seen.add(run, id);
  }
  return { start, reason };
}

/** What changed between two runs' stages, in words: the counts, or the first stage name that differs. */
function stageChangeOf(before: StageStructure, after: StageStructure): string {
  if (before.count !== after.count)
    return `the stage structure changed (${before.count} → ${after.count} stages)`;
  const earlier = new Set(before.names);
  const later = new Set(after.names);
  const gone = [...earlier].find((name) => !later.has(name));
  const added = [...later].find((name) => !earlier.has(name));
  return `the stage structure changed (${after.count} stages, but "${gone ?? '?'}" became "${added ?? '?'}")`;
}

/**
 * What a segment has seen, as plain data: kept with the project's learning summary so that rebase
 * detection continues across the window's first run. Stage names are in profile order; tasks are null
 * before the first completed run.
 */
export interface SegmentState {
  referenceStages: string[] | null;
  /** The reference run's stage attempts, when its model profile lists only some (absent otherwise). */
  referenceStageCount?: number;
  inputs: { min: number; max: number } | null;
  tasks: { min: number; max: number } | null;
  perByte: Record<string, { sum: number; runs: number }>;
}

/** The completed runs of a segment so far, as much as `changeOf` compares a new run with. */
export class SegmentSummary {
  /** The stage names of the latest completed run and the key they make. */
  #reference: StageStructure | null = null;
  #inputs: { min: number; max: number } | null = null;
  #tasks = { min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
  /** Per configuration: the sum and count of runtime per input byte, summed in run order. */
  readonly #perByte = new Map<string, { sum: number; runs: number }>();

  static fromState(state: SegmentState): SegmentSummary {
    const summary = new SegmentSummary();
    if (state.referenceStages)
      summary.#reference = referenceOf(state.referenceStages, state.referenceStageCount);
    summary.#inputs = state.inputs ? { ...state.inputs } : null;
    if (state.tasks) summary.#tasks = { ...state.tasks };
    for (const [id, entry] of Object.entries(state.perByte)) summary.#perByte.set(id, { ...entry });
    return summary;
  }

  state(): SegmentState {
    const hasTasks = Number.isFinite(this.#tasks.min);
    const reference = this.#reference;
    return {
      referenceStages: reference ? [...reference.names] : null,
      ...(reference && reference.count > reference.names.length
        ? { referenceStageCount: reference.count }
        : {}),
      inputs: this.#inputs ? { ...this.#inputs } : null,
      tasks: hasTasks ? { ...this.#tasks } : null,
      perByte: Object.fromEntries([...this.#perByte].map(([id, entry]) => [id, { ...entry }])),
    };
  }

  add(run: RecommenderRun, id: string): void {
    if (!runCompleted(run)) return;
    this.#reference = structureOf(run.profile);
    const input = inputBytesOf(run);
    if (input > 0) {
      this.#inputs = this.#inputs
        ? { min: Math.min(this.#inputs.min, input), max: Math.max(this.#inputs.max, input) }
        : { min: input, max: input };
    }
    const tasks = run.profile.totals.tasks;
    this.#tasks = { min: Math.min(this.#tasks.min, tasks), max: Math.max(this.#tasks.max, tasks) };
    const entry = this.#perByte.get(id) ?? { sum: 0, runs: 0 };
    this.#perByte.set(id, { sum: entry.sum + perByte(run), runs: entry.runs + 1 });
  }

  changeOf(run: RecommenderRun, id: string, settings: RebaseSettings): string | null {
    const reference = this.#reference;
    if (!runCompleted(run) || !reference) return null;
    const structure = structureOf(run.profile);
    if (structure.key !== reference.key) return stageChangeOf(reference, structure);
    const inputs = this.#inputs;
    const input = inputBytesOf(run);
    if (inputs && input > 0) {
      const low = inputs.min / settings.inputGrowthFactor;
      const high = inputs.max * settings.inputGrowthFactor;
      if (input < low || input > high) {
        return `the input moved to ${gib(input)} GiB, outside the ${gib(inputs.min)}–${gib(inputs.max)} GiB seen`;
      }
    }
    const tasks = this.#tasks;
    const runTasks = run.profile.totals.tasks;
    if (runTasks < tasks.min / settings.taskCountFactor || runTasks > tasks.max * settings.taskCountFactor) {
      return `the task count moved to ${runTasks}, outside the ${tasks.min}–${tasks.max} seen`;
    }
    const sameConfig = this.#perByte.get(id);
    if (sameConfig) {
      const deviation = perByte(run) / (sameConfig.sum / sameConfig.runs) - 1;
      if (Math.abs(deviation) > settings.runtimeAnomaly) {
        return `the runtime on an unchanged configuration moved ${signedPercent(deviation)} from its earlier runs`;
      }
    }
    return null;
  }
}

const perByte = (run: RecommenderRun) => runtimeSecondsOf(run.profile) / Math.max(1, inputBytesOf(run));

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
const signedPercent = (fraction: number) => `${fraction >= 0 ? '+' : ''}${Math.round(fraction * 100)}%`;
