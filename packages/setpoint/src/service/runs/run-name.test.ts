import { describe, expect, it } from 'vitest';
import { runName } from './run-name.js';

describe('runName', () => {
  it('names a run by when it started, to the minute in UTC', () => {
    expect(runName({ startedAt: Date.UTC(2026, 11, 6, 2, 11, 26, 56), endedAt: null })).toBe(
      'the run of 2026-12-06 02:11 UTC',
    );
  });

  it('falls back to when it ended, then to no time at all, never to an id', () => {
    expect(runName({ startedAt: null, endedAt: Date.UTC(2026, 0, 2, 23, 59) })).toBe(
      'the run of 2026-01-02 23:59 UTC',
    );
    expect(runName({ startedAt: null, endedAt: null })).toBe('the run');
  });
});
