import type { StageProfile } from '../run-profile.js';

/** A group of jobs that ran at the same time; groups run one after another. */
export interface JobGroup {
  stages: StageProfile[];
}

/** A binary min-heap of slot free times. */
class SlotHeap {
  private readonly heap: Float64Array;

  constructor(slots: number) {
    this.heap = new Float64Array(slots);
  }

  /** Takes the earliest-free slot, runs a task on it from max(freeTime, readyAt), returns its end. */
  run(readyAt: number, durationMs: number): number {
    const heap = this.heap;
    const end = Math.max(heap[0]!, readyAt) + durationMs;
    heap[0] = end;
    let index = 0;
    const size = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < size && heap[left]! < heap[smallest]!) smallest = left;
      if (right < size && heap[right]! < heap[smallest]!) smallest = right;
      if (smallest === index) break;
      const swap = heap[index]!;
      heap[index] = heap[smallest]!;
      heap[smallest] = swap;
      index = smallest;
    }
    return end;
  }
}

/**
 * Replays the recorded tasks on `slots` task slots (executors × cores per executor): each group of
 * concurrent jobs is simulated from time 0; a stage starts when its parent stages in the group have
 * finished; each task takes the earliest free slot and keeps its recorded duration (at least 1 ms).
 * Returns the summed simulated time of the groups (driver time is added by the caller).
 */
export function replayOnSlots(groups: JobGroup[], slots: number): number {
  let total = 0;
  for (const group of groups) {
    const heap = new SlotHeap(Math.max(1, Math.floor(slots)));
    const finish = new Map<number, number>();
    let groupEnd = 0;
    for (const stage of group.stages) {
      const readyAt = stage.parentIds.reduce(
        (latest, parent) => Math.max(latest, finish.get(parent) ?? 0),
        0,
      );
      let stageEnd = readyAt;
      for (const durations of [stage.unsuccessfulTaskDurationsMs, stage.taskDurationsMs]) {
        for (const duration of durations)
          stageEnd = Math.max(stageEnd, heap.run(readyAt, Math.max(1, duration)));
      }
      finish.set(stage.stageId, Math.max(finish.get(stage.stageId) ?? 0, stageEnd));
      groupEnd = Math.max(groupEnd, stageEnd);
    }
    total += groupEnd;
  }
  return total;
}

/** The longest chain of stages in each group, each stage counted as its longest task; summed over groups. */
export function criticalPathOfGroups(groups: JobGroup[]): number {
  let total = 0;
  for (const group of groups) {
    const finish = new Map<number, number>();
    let longest = 0;
    for (const stage of group.stages) {
      const start = stage.parentIds.reduce((latest, parent) => Math.max(latest, finish.get(parent) ?? 0), 0);
      let longestTask = stage.maxTaskMs;
      for (const duration of stage.unsuccessfulTaskDurationsMs) longestTask = Math.max(longestTask, duration);
      const end = start + longestTask;
      finish.set(stage.stageId, Math.max(finish.get(stage.stageId) ?? 0, end));
      longest = Math.max(longest, end);
    }
    total += longest;
  }
  return total;
}
