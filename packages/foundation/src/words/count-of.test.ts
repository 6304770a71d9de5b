import { describe, expect, it } from 'vitest';
import { countOf } from './count-of.js';

describe('countOf', () => {
  it('says one thing in the singular and every other count in the plural', () => {
    expect(countOf(1, 'worker')).toBe('1 worker');
    expect(countOf(0, 'worker')).toBe('0 workers');
    expect(countOf(2, 'run')).toBe('2 runs');
    expect(countOf(1.5, 'hour')).toBe('1.5 hours');
  });

  it('takes an irregular plural', () => {
    expect(countOf(1, 'analysis', 'analyses')).toBe('1 analysis');
    expect(countOf(3, 'analysis', 'analyses')).toBe('3 analyses');
  });
});
