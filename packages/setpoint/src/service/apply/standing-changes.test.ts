import { describe, expect, it } from 'vitest';
import type { AppliedChange } from './applied-change-records.js';
import { rollbackTarget } from './standing-changes.js';

let clock = 0;
const entry = (
  id: string,
  kind: AppliedChange['kind'],
  options: { metSla?: boolean; undoes?: string } = {},
): AppliedChange => {
  clock += 1;
  return {
    id,
    projectId: 'prj_1',
    platform: 'databricks',
    recommendationId: kind === 'apply' || kind === 'auto-apply' ? `rec_${id}` : null,
    kind,
    configuration: { id },
    undoes: options.undoes ?? null,
    actor: 'test',
    reason: 'r',
    createdAt: clock,
    metSlaAt: options.metSla ? clock + 100 : null,
  };
};

const ids = (target: ReturnType<typeof rollbackTarget>) => ({
  to: target.to?.id ?? null,
  undo: target.undo.map((change) => change.id),
});

describe('where a rollback goes by default', () => {
  it('goes to the newest configuration before the one in place whose runs met the SLA', () => {
    const history = [
      entry('base', 'baseline', { metSla: true }),
      entry('a', 'auto-apply', { metSla: true }),
      entry('b', 'auto-apply'),
      entry('c', 'auto-apply', { metSla: true }),
    ];
    // the one in place met the SLA too: a rollback still leaves it
    expect(ids(rollbackTarget('prj_1', history, undefined))).toEqual({ to: 'a', undo: ['b', 'c'] });
  });

  it('goes to the cold start when no earlier configuration met the SLA', () => {
    const history = [entry('base', 'baseline'), entry('a', 'auto-apply'), entry('b', 'auto-apply')];
    expect(ids(rollbackTarget('prj_1', history, undefined))).toEqual({ to: 'base', undo: ['a', 'b'] });
  });

  it('undoes every change still in place where the platform records no baseline (EMR)', () => {
    const history = [entry('a', 'apply'), entry('b', 'auto-apply')];
    expect(ids(rollbackTarget('prj_1', history, undefined))).toEqual({ to: null, undo: ['a', 'b'] });
    expect(ids(rollbackTarget('prj_1', [entry('only', 'apply')], undefined))).toEqual({
      to: null,
      undo: ['only'],
    });
  });

  it('goes where it is asked, and refuses when there is nothing earlier', () => {
    const history = [entry('base', 'baseline'), entry('a', 'apply', { metSla: true }), entry('b', 'apply')];
    expect(ids(rollbackTarget('prj_1', history, 'base'))).toEqual({ to: 'base', undo: ['a', 'b'] });
    expect(() => rollbackTarget('prj_1', [entry('base', 'baseline')], undefined)).toThrow(
      /no earlier configuration/,
    );
    expect(() => rollbackTarget('prj_1', history, 'cfg_missing')).toThrow(/no applied configuration/);
  });
});
