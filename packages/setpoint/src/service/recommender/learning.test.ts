import { projectSettingsSchema } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { defaultOptimizerSettings } from '../../optimizer/recommend.js';
import { isLearningRun, learningRuns, learningRunsFor, recommendationIsLearning } from './learning.js';

const learning = (active: boolean) => ({ active, run: 2, maxRuns: 8, missBudget: 3, missesSpent: 0 });

describe('recommendationIsLearning', () => {
  it('takes the decision at its word, whatever the phase says', () => {
    expect(recommendationIsLearning({ phase: 'OPTIMIZING', decision: { learning: learning(true) } })).toBe(
      true,
    );
    expect(recommendationIsLearning({ phase: 'LEARNING', decision: { learning: learning(false) } })).toBe(
      false,
    );
  });

  it('takes a rebasing decision at its word too', () => {
    const rebased = (active: boolean) => ({
      ...learning(active),
      rebaseReason: 'the stage structure changed',
    });
    expect(recommendationIsLearning({ phase: 'REBASING', decision: { learning: rebased(true) } })).toBe(true);
    expect(recommendationIsLearning({ phase: 'REBASING', decision: { learning: rebased(false) } })).toBe(
      false,
    );
  });

  it('counts a rebasing recommendation recorded before rebases were in the decision as learning', () => {
    expect(recommendationIsLearning({ phase: 'REBASING', decision: { learning: learning(false) } })).toBe(
      true,
    );
    expect(recommendationIsLearning({ phase: 'REBASING', decision: null })).toBe(true);
  });

  it('falls back to the phase for decisions recorded before the learning budget, else says nothing', () => {
    expect(recommendationIsLearning({ phase: 'LEARNING', decision: {} })).toBe(true);
    expect(recommendationIsLearning({ phase: 'MONITORING', decision: null })).toBe(false);
    expect(recommendationIsLearning({ phase: null, decision: null })).toBeNull();
  });
});

describe('isLearningRun', () => {
  it('takes the configuring recommendation at its word, at any position', () => {
    expect(isLearningRun(true, 7, 3)).toBe(true);
    expect(isLearningRun(false, 2, 3)).toBe(false);
  });

  it('counts the cold start and the learning runs as learning where no recommendation says', () => {
    expect([0, 2, 3, 4, 5].map((index) => isLearningRun(null, index, 3))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('defaults to the learning runs of the default SLA-miss budget, which a new project gets', () => {
    const projectDefault = projectSettingsSchema.parse({}).learningMissBudget;
    expect(projectDefault).toBe(defaultOptimizerSettings.learningMissBudget);
    expect(learningRuns).toBe(learningRunsFor(projectDefault));
    expect(learningRuns).toBe(defaultOptimizerSettings.learningRuns);
    expect(isLearningRun(undefined, learningRuns, undefined)).toBe(true);
    expect(isLearningRun(undefined, learningRuns + 1)).toBe(false);
  });
});
