import { describe, expect, it } from 'vitest';
import { type RevertIntent, revertChange, revertJobKey } from './revert-job.js';

function targetWith(standing: string[]) {
  const undone: RevertIntent[] = [];
  return {
    undone,
    target: {
      standing: async () => standing.map((id) => ({ id })),
      undo: async (intent: RevertIntent) => {
        undone.push(intent);
      },
    },
  };
}

const intent: RevertIntent = {
  projectId: 'p1',
  configId: 'c2',
  toConfigId: 'c0',
  reason: 'reverted: run 7 failed',
};

describe('revertChange', () => {
  it('undoes the change when it is the latest one still in place', async () => {
    const { target, undone } = targetWith(['c1', 'c2']);
    await revertChange(target, intent);
    expect(undone).toEqual([intent]);
  });

  it('does nothing when the change is already undone (the job ran before)', async () => {
    const { target, undone } = targetWith(['c1']);
    await revertChange(target, intent);
    expect(undone).toEqual([]);
  });

  it('refuses when Setpoint changed the project again since', async () => {
    const { target, undone } = targetWith(['c2', 'c3']);
    await expect(revertChange(target, intent)).rejects.toMatchObject({ code: 'REVERT_SUPERSEDED' });
    expect(undone).toEqual([]);
  });
});

describe('revertJobKey', () => {
  it('keys one revert job per change', () => {
    expect(revertJobKey('x.revert', 'c2')).toBe('x.revert:c2');
  });
});
