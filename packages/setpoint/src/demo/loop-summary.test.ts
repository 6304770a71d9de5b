import { median } from '@setpoint/foundation/statistics';
import { describe, expect, it } from 'vitest';
import { learningRuns } from '../service/recommender/learning.js';
import type { ProjectRun } from './loop-records.js';
import {
  type ConfiguringRecommendation,
  markLearningRuns,
  overallSummary,
  runsAfterLearning,
  summarizeProject,
} from './loop-summary.js';

const run = (costUsd: number, runtimeMinutes: number, status = 'SUCCESS'): ProjectRun => ({
  id: `run_${costUsd}`,
  runId: String(costUsd),
  status,
  runtimeMinutes,
  costUsd,
  pipelineState: 'DONE',
  endedAt: 0,
  recommendationId: null,
  learning: null,
});

/** A recommendation made after run `basedOn` (1-based), a learning run or not, as its decision says. */
function recommendation(
  basedOn: number,
  learning: boolean,
  action: 'keep' | 'change' = 'change',
): ConfiguringRecommendation {
  return {
    id: `rec_${basedOn}`,
    state: 'SUCCESS',
    phase: learning ? 'LEARNING' : action === 'keep' ? 'MONITORING' : 'OPTIMIZING',
    decision: {
      action,
      learning: { active: learning, run: basedOn, maxRuns: 8, missBudget: 3, missesSpent: 0 },
    },
    basedOnRunId: `run_${basedOn}`,
    createdAt: basedOn,
  };
}

/**
 * A closed loop's history: run 1 is the cold start, run k + 1 carries the recommendation made after run k,
 * and the recommendations made after runs 1 … `learningUntil` − 1 are learning runs (learning ends at run
 * `learningUntil`). Runtimes are the runs' minutes, oldest first.
 */
function history(learningUntil: number, runtimes: number[]) {
  const stored = runtimes.map((runtimeMinutes, index) => ({
    ...run(10 - index * 0.5, runtimeMinutes),
    id: `run_${index + 1}`,
    recommendationId: index === 0 ? null : `rec_${index}`,
  }));
  const recommendations = runtimes
    .slice(0, -1)
    .map((_, index) => recommendation(index + 1, index + 2 <= learningUntil));
  return markLearningRuns(stored, recommendations);
}

/** Runs 1 … n, each carrying the tag of the recommendation whose configuration it ran on (null: none). */
function carrying(tags: Array<string | null>): ProjectRun[] {
  return tags.map((recommendationId, index) => ({
    ...run(10, 30),
    id: `run_${index + 1}`,
    recommendationId,
  }));
}

// SLA 40 min; runs 5 and 6 miss it, and so does run 9.
const runtimes = [30, 35, 38, 36, 50, 45, 38, 39, 41, 35];

describe('closed-loop summaries', () => {
  it('measures saving from the first to the last costed run and SLA hits after learning', () => {
    // the cold start, the default phase's learning runs (unmarked: counted by position), then 3 runs
    const runs = [
      run(10, 30),
      ...Array.from({ length: learningRuns }, (_, index) => run(8 - index / learningRuns, 50)),
      run(5, 39),
      run(5, 41, 'FAILED'),
      run(5, 45),
    ];

    const summary = summarizeProject('etl', runs, 40, 'OPTIMIZING');

    expect(summary.saving).toBeCloseTo(0.5, 10);
    expect(summary.slaMetLastRuns).toEqual({ met: 1, of: 3 });
  });

  it('measures what the runs after the first cost on average, a failed run with its rerun at the first cost', () => {
    // the first recommendation's run and a learning run cheap, a failed one, a dear last learning run
    const runs = [run(10, 30), run(6, 30), run(5, 30), run(4, 60, 'FAILED'), run(11, 20)];

    const summary = summarizeProject('etl', runs, 40, 'LEARNING');

    // paid 6 + 5 + (4 + 10) + 11 = 36 over 4 runs: 9 a run against 10
    expect(summary.savingAfterFirstRecommendation).toBeCloseTo(0.1, 10);
    // the last run alone reads as a loss
    expect(summary.saving).toBeCloseTo(-0.1, 10);
    expect(summarizeProject('new', [run(10, 30)], 40, 'LEARNING').savingAfterFirstRecommendation).toBeNull();
  });

  it('counts as after learning only runs configured by a non-learning recommendation (budget 3, learning to run 6)', () => {
    const runs = history(6, runtimes);

    expect(runs.map((entry) => entry.learning)).toEqual([
      null,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(runsAfterLearning(runs).map((entry) => entry.id)).toEqual(['run_7', 'run_8', 'run_9', 'run_10']);
    // the learning runs 5 and 6 were allowed to miss: a fixed count of 4 would have scored 4 of 6
    expect(summarizeProject('etl', runs, 40, 'OPTIMIZING').slaMetLastRuns).toEqual({ met: 3, of: 4 });
    // from run 3 on, learning runs included: runs 5, 6 and 9 of those 8 missed
    expect(summarizeProject('etl', runs, 40, 'OPTIMIZING').slaMetAfterFirstRecommendation).toEqual({
      met: 5,
      of: 8,
    });
  });

  it('counts every run after learning when learning ends early (budget 3, learning to run 4)', () => {
    const runs = history(4, runtimes);

    expect(runsAfterLearning(runs).map((entry) => entry.id)).toEqual([
      'run_5',
      'run_6',
      'run_7',
      'run_8',
      'run_9',
      'run_10',
    ]);
    expect(summarizeProject('etl', runs, 40, 'OPTIMIZING').slaMetLastRuns).toEqual({ met: 3, of: 6 });
    // learning that ends before the default count is not stretched to it
    expect(runsAfterLearning(history(3, runtimes))[0]?.id).toBe('run_4');
  });

  it('keeps the default figures where learning lasts the default count, and where no recommendation says', () => {
    const marked = history(1 + learningRuns, runtimes);
    const unmarked = marked.map((entry) => ({ ...entry, learning: null }));

    expect(summarizeProject('etl', marked, 40, 'OPTIMIZING')).toEqual(
      summarizeProject('etl', unmarked, 40, 'OPTIMIZING'),
    );
  });

  it('marks a run by the decision made after the run before it, not by the tag it carries', () => {
    const stored = carrying([null, 'rec_1', 'rec_2', 'rec_2', 'rec_1', 'rec_1']);
    const recommendations = [
      recommendation(1, true),
      recommendation(2, true),
      // kept the cluster: nothing written, run 4 still carries rec_2
      recommendation(3, false, 'keep'),
      // not applied: a revert wrote rec_1's cluster back, with its tag, before run 5
      recommendation(4, false),
      // failed: run 6 is judged by the tag it carries
      { ...recommendation(5, false), state: 'FAILURE' as const },
    ];

    expect(markLearningRuns(stored, recommendations).map((entry) => entry.learning)).toEqual([
      null,
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it('marks a run after a learning run that waited for approval and was never written by what it ran on', () => {
    // approve-learning: rec_1 and rec_2 were superseded (the next run started first), rec_3 was approved
    // and written (run 4 carries it), rec_4 was rejected (run 5 still carries rec_3), rec_5 optimizes
    const stored = carrying([null, null, null, 'rec_3', 'rec_3', 'rec_5']);
    const recommendations = [
      recommendation(1, true),
      recommendation(2, true),
      recommendation(3, true),
      recommendation(4, true),
      recommendation(5, false),
    ];
    const withheld = new Set(['rec_1', 'rec_2', 'rec_4']);

    const marked = markLearningRuns(stored, recommendations, withheld);

    // runs 2 and 3 ran on the job's own cluster, run 5 again on the approved learning run's
    expect(marked.map((entry) => entry.learning)).toEqual([null, false, false, true, true, false]);
    expect(runsAfterLearning(marked).map((entry) => entry.id)).toEqual(['run_2', 'run_3', 'run_6']);
    // without the approvals the two superseded ones would count as learning runs
    expect(markLearningRuns(stored, recommendations).map((entry) => entry.learning)).toEqual([
      null,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('reports the median saving and the violation rate across projects', () => {
    const projects = [
      summarizeProject('a', [run(10, 1), run(7, 1)], 5, 'LEARNING'),
      summarizeProject('b', [run(10, 1), run(9, 1)], 5, 'LEARNING'),
      summarizeProject(
        'c',
        [run(10, 1), ...Array.from({ length: learningRuns }, () => run(2, 1)), run(2, 9)],
        5,
        'OPTIMIZING',
      ),
    ];

    expect(overallSummary(projects)).toEqual({
      medianSaving: expect.closeTo(0.3, 10),
      // a 0.3, b 0.1, c 0.8 (every run after the first at 2 of 10)
      medianSavingAfterFirstRecommendation: expect.closeTo(0.3, 10),
      slaViolationRateAfterLearning: 1,
    });
    expect(median([])).toBeNull();
    expect(median([3, 1, 2, 4])).toBe(2.5);
  });
});
