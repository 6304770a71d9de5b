import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { RecommenderRun } from './recommender-run.js';

/** What the rebase rule and the learning summary read of a run, as a property test draws it. */
export interface RunFacts {
  stages: readonly string[];
  inputBytes: number;
  tasks: number;
  runtimeS: number;
  failed: boolean;
  configuration: string;
}

/** A run with just those facts (the `index`th of its history). */
export function runOf(facts: RunFacts, index: number): RecommenderRun {
  const profile = {
    application: { durationMs: facts.runtimeS * 1000, exitCode: null },
    analysis: { wallTimeMs: facts.runtimeS * 1000 },
    executors: { maxConcurrent: 4, coresPerExecutor: 4 },
    stages: facts.stages.map((name, stageId) => ({ stageId, name, tasks: 0 })),
    stageCount: facts.stages.length,
    totals: {
      tasks: facts.tasks,
      failedJobs: facts.failed ? 1 : 0,
      inputBytes: facts.inputBytes,
      executorRunTimeMs: 0,
      diskBytesSpilled: 0,
    },
  } as unknown as ModelProfile;
  return {
    id: `run_${index}`,
    profile,
    inputBytes: null,
    cost: { totalUsd: 1 },
  } as unknown as RecommenderRun;
}
