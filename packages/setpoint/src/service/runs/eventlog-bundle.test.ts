import { describe, expect, it } from 'vitest';
import { bundleFileName } from './eventlog-bundle.js';

describe('names in an event-log bundle', () => {
  it('keeps a file its own name so a Databricks rolled set stays recognisable', () => {
    expect(bundleFileName('eventlog-2024-02-13--19-00.gz', new Set(['eventlog']), 'x')).toBe(
      'eventlog-2024-02-13--19-00.gz',
    );
  });

  it('numbers a name only when an earlier file took it, and strips paths and odd characters', () => {
    expect(bundleFileName('eventlog', new Set(['eventlog']), 'x')).toBe('001-eventlog');
    expect(bundleFileName('eventlog', new Set(['eventlog', '001-eventlog']), 'x')).toBe('002-eventlog');
    expect(bundleFileName('../../etc/pass wd', new Set(), 'x')).toBe('pass_wd');
    expect(bundleFileName('', new Set(), 'fallback')).toBe('fallback');
  });
});
