import { describe, expect, it } from 'vitest';
import { diffConfigs } from '../../web/src/lib/config-diff.js';
import { csvField, toCsv } from '../../web/src/lib/csv.js';
import { matchesSearch, sortRows } from '../../web/src/lib/table.js';
import { toSettings } from '../../web/src/pages/project/settings-form.js';

describe('CSV export', () => {
  it('quotes fields with commas, quotes and line breaks per RFC 4180 and ends lines with CRLF', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(toCsv(['Project', 'Cost'], [['Revenue, "gold"', '$1.00']])).toBe(
      'Project,Cost\r\n"Revenue, ""gold""",$1.00\r\n',
    );
  });
});

describe('table sorting and search', () => {
  const rows = [{ v: 3 }, { v: null }, { v: 1 }, { v: 2 }];
  it('sorts both ways and keeps rows without a value last', () => {
    const value = (row: { v: number | null }) => row.v;
    expect(sortRows(rows, { value, direction: 'asc' }).map((row) => row.v)).toEqual([1, 2, 3, null]);
    expect(sortRows(rows, { value, direction: 'desc' }).map((row) => row.v)).toEqual([3, 2, 1, null]);
  });
  it('sorts names with numbers in natural order', () => {
    const names = [{ n: 'job-10' }, { n: 'job-9' }];
    expect(sortRows(names, { value: (row) => row.n, direction: 'asc' }).map((row) => row.n)).toEqual([
      'job-9',
      'job-10',
    ]);
  });
  it('matches every word of the query in any of the texts, ignoring case', () => {
    expect(matchesSearch(['Nightly Orders', 'analytics-prod'], 'orders PROD')).toBe(true);
    expect(matchesSearch(['Nightly Orders', 'analytics-prod'], 'orders dev')).toBe(false);
    expect(matchesSearch(['anything'], '  ')).toBe(true);
  });
});

describe('recommendation diff', () => {
  const current = {
    node_type_id: 'm5.xlarge',
    num_workers: 6,
    spark_version: '15.4.x-scala2.12',
    aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
  };
  it('keeps settings the fragment leaves out and marks what it changes', () => {
    const lines = diffConfigs(current, {
      num_workers: 24,
      aws_attributes: { availability: 'SPOT_WITH_FALLBACK' },
    });
    const byPath = Object.fromEntries(lines.map((line) => [line.path, line]));
    expect(byPath.num_workers).toMatchObject({ current: '6', recommended: '24', changed: true });
    expect(byPath['aws_attributes.availability']?.changed).toBe(true);
    expect(byPath.spark_version).toMatchObject({ recommended: '"15.4.x-scala2.12"', changed: false });
    expect(byPath['aws_attributes.first_on_demand']?.changed).toBe(false);
    expect(lines.slice(0, 2).every((line) => line.changed)).toBe(true);
  });
  it('replaces a fixed size with autoscaling', () => {
    const lines = diffConfigs(current, { autoscale: { min_workers: 2, max_workers: 8 } });
    const byPath = Object.fromEntries(lines.map((line) => [line.path, line]));
    expect(byPath.num_workers).toMatchObject({ current: '6', recommended: null, changed: true });
    expect(byPath['autoscale.max_workers']).toMatchObject({ current: null, recommended: '8', changed: true });
  });
});

describe('project settings form', () => {
  const form = {
    sla: '45',
    autoApply: false,
    maintainScalingType: true,
    preference: 'balanced' as const,
    families: 'm5, r5',
    types: '',
    minWorkers: '2',
    maxWorkers: '10',
    spotPolicy: 'spot-with-fallback' as const,
    forceOnDemandDriver: true,
    photonAllowed: true,
    windowCron: '',
    windowMinutes: '',
  };
  it('turns the form into settings', () => {
    const result = toSettings(form);
    expect(result).toEqual({
      settings: expect.objectContaining({
        slaMinutes: 45,
        allowedInstanceFamilies: ['m5', 'r5'],
        allowedInstanceTypes: [],
        minWorkers: 2,
        maxWorkers: 10,
        optimizationWindow: null,
      }),
    });
    expect(toSettings({ ...form, sla: '' })).toMatchObject({ settings: { slaMinutes: null } });
  });
  it('names the first problem a person must fix', () => {
    expect(toSettings({ ...form, sla: '-3' })).toEqual({ problem: expect.stringContaining('SLA') });
    expect(toSettings({ ...form, minWorkers: '12' })).toEqual({
      problem: expect.stringContaining('must not exceed'),
    });
    expect(toSettings({ ...form, windowCron: '0 2 * * 1' })).toEqual({
      problem: expect.stringContaining('window'),
    });
  });
});
