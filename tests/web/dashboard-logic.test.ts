import { describe, expect, it } from 'vitest';
import { marketWords } from '../../web/src/api/insight-runs.js';
import {
  columnsThatFit,
  layoutStorageKey,
  moveColumn,
  placeColumn,
  reconcileLayout,
  visibleColumns,
} from '../../web/src/lib/column-layout.js';
import { diffConfigs } from '../../web/src/lib/config-diff.js';
import { csvField, toCsv } from '../../web/src/lib/csv.js';
import { csvTable, csvText } from '../../web/src/lib/csv-values.js';
import { formatExactMinutes } from '../../web/src/lib/format.js';
import { runAxisLabels } from '../../web/src/lib/run-axis.js';
import { matchesSearch, sortRows } from '../../web/src/lib/table.js';
import { toSettings } from '../../web/src/pages/project/settings-form.js';
import { type ProjectRow, projectColumns } from '../../web/src/pages/projects/project-columns.js';
import { parseCsv } from '../support/csv-parse.js';

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

describe('CSV export of formula-like cells', () => {
  it('writes them as text (a leading quote) and plain numbers as they are', () => {
    expect(csvField('=HYPERLINK("https://evil.example","x")')).toBe(
      `"'=HYPERLINK(""https://evil.example"",""x"")"`,
    );
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const cell = parseCsv(toCsv(['h'], [[`${start}cmd|' /C calc'!A0`]]))[1]?.[0];
      expect(cell, JSON.stringify(start)).toBe(`'${start}cmd|' /C calc'!A0`);
    }
    expect(csvField('-12.5')).toBe('-12.5');
    expect(csvField('+3')).toBe('+3');
    expect(csvField('1e-3')).toBe('1e-3');
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
    applyMode: 'approve-learning' as const,
    maintainScalingType: true,
    preference: 'balanced' as const,
    families: 'm5, r5',
    types: '',
    minWorkers: '2',
    maxWorkers: '10',
    spotPolicy: 'spot-with-fallback' as const,
    forceOnDemandDriver: true,
    photonAllowed: true,
    learningMissBudget: '3',
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
        learningMissBudget: 3,
      }),
    });
    expect(toSettings({ ...form, sla: '' })).toMatchObject({ settings: { slaMinutes: null } });
    // the apply mode, with the switch of earlier versions in agreement
    expect(toSettings(form)).toMatchObject({ settings: { applyMode: 'approve-learning', autoApply: true } });
    expect(toSettings({ ...form, applyMode: 'manual' })).toMatchObject({
      settings: { applyMode: 'manual', autoApply: false },
    });
    expect(toSettings({ ...form, learningMissBudget: '0' })).toMatchObject({
      settings: { learningMissBudget: 0 },
    });
  });
  it('names the first problem a person must fix', () => {
    expect(toSettings({ ...form, sla: '-3' })).toEqual({ problem: expect.stringContaining('SLA') });
    expect(toSettings({ ...form, minWorkers: '12' })).toEqual({
      problem: expect.stringContaining('must not exceed'),
    });
    expect(toSettings({ ...form, windowCron: '0 2 * * 1' })).toEqual({
      problem: expect.stringContaining('window'),
    });
    for (const learningMissBudget of ['8', '-1', '1.5', 'many']) {
      expect(toSettings({ ...form, learningMissBudget })).toEqual({
        problem: expect.stringContaining('SLA-miss budget'),
      });
    }
  });
});

describe('column layouts', () => {
  const columns = [{ id: 'name', fixed: true }, { id: 'phase' }, { id: 'cost' }, { id: 'savings' }];

  it('starts from the default order with nothing hidden', () => {
    expect(reconcileLayout(null, columns)).toEqual({
      order: ['name', 'phase', 'cost', 'savings'],
      hidden: [],
    });
    expect(reconcileLayout('garbage', columns)).toEqual(reconcileLayout(null, columns));
  });

  it('keeps a stored order, drops unknown columns, places new ones at their default position and never hides a fixed one', () => {
    const stored = { order: ['cost', 'gone', 'name', 'savings'], hidden: ['name', 'savings', 'gone'] };
    expect(reconcileLayout(stored, columns)).toEqual({
      order: ['cost', 'name', 'phase', 'savings'],
      hidden: ['savings'],
    });
  });

  it('moves a column left and right, clamped at both ends', () => {
    const order = ['name', 'phase', 'cost'];
    expect(moveColumn(order, 'cost', -1)).toEqual(['name', 'cost', 'phase']);
    expect(moveColumn(order, 'name', -1)).toEqual(order);
    expect(moveColumn(order, 'name', 5)).toEqual(['phase', 'cost', 'name']);
  });

  it('puts a dragged column where it was dropped, from either side', () => {
    const order = ['name', 'phase', 'cost', 'savings'];
    expect(placeColumn(order, 'cost', 'name')).toEqual(['cost', 'name', 'phase', 'savings']);
    expect(placeColumn(order, 'name', 'cost')).toEqual(['phase', 'cost', 'name', 'savings']);
    expect(placeColumn(order, 'phase', 'phase')).toEqual(order);
    expect(placeColumn(order, 'gone', 'name')).toEqual(order);
  });

  it('shows the visible columns in the chosen order, one stored layout per user and table', () => {
    const layout = { order: ['cost', 'name', 'phase', 'savings'], hidden: ['phase'] };
    expect(visibleColumns(columns, layout).map((column) => column.id)).toEqual(['cost', 'name', 'savings']);
    expect(layoutStorageKey('projects', 'ana')).not.toBe(layoutStorageKey('projects', 'bo'));
    expect(layoutStorageKey('projects', 'ana')).not.toBe(layoutStorageKey('discover', 'ana'));
  });

  describe('fitting a narrow window', () => {
    const sized = [
      { id: 'name', minWidth: 160 },
      { id: 'workspace', minWidth: 100, fitRank: 2 },
      { id: 'cost', minWidth: 64 },
      { id: 'spend', minWidth: 72, fitRank: 1 },
      { id: 'insights', minWidth: 64, fitRank: 3 },
    ];
    const ids = (fit: { fitting: { id: string }[]; leftOut: { id: string }[] }) => ({
      fitting: fit.fitting.map((column) => column.id),
      leftOut: fit.leftOut.map((column) => column.id),
    });

    it('keeps every column while their minimums and gaps fit, to the pixel', () => {
      // 160 + 100 + 64 + 72 + 64 = 460, and four gaps of 8
      expect(ids(columnsThatFit(sized, 492, 8)).leftOut).toEqual([]);
      expect(ids(columnsThatFit(sized, 491, 8)).leftOut).toEqual(['spend']);
    });

    it('leaves out the lowest rank first, keeps the order of the rest and never drops an unranked column', () => {
      expect(ids(columnsThatFit(sized, 420, 8))).toEqual({
        fitting: ['name', 'workspace', 'cost', 'insights'],
        leftOut: ['spend'],
      });
      expect(ids(columnsThatFit(sized, 310, 8))).toEqual({
        fitting: ['name', 'cost', 'insights'],
        leftOut: ['workspace', 'spend'],
      });
      expect(ids(columnsThatFit(sized, 100, 8))).toEqual({
        fitting: ['name', 'cost'],
        leftOut: ['workspace', 'spend', 'insights'],
      });
    });

    it('keeps every default Projects column at 1280 px and the ones a person reads the table for at 1024', () => {
      // The row between its paddings below 1366 px (styles.css): the window less the page's scrollbar, the
      // sidebar, the page's padding, the frame, the row's padding and the table's scrollbar; 0.4rem gaps.
      const rowAt = (window: number) => window - 15 - 190 - 40 - 2 - 19.2 - 15;
      expect(columnsThatFit(projectColumns, rowAt(1280), 6.4).leftOut).toEqual([]);
      const narrow = columnsThatFit(projectColumns, rowAt(1024), 6.4);
      expect(narrow.fitting.map((column) => column.id)).toEqual(
        expect.arrayContaining(['name', 'phase', 'runtime', 'sla_hit', 'cost', 'savings', 'auto_apply']),
      );
      expect(narrow.leftOut.length).toBeGreaterThan(0);
    });
  });
});

describe('numeric CSV', () => {
  it('writes numbers as plain decimals, booleans as words and nothing for a missing value', () => {
    expect(csvText(0.1 + 0.2)).toBe('0.3');
    expect(csvText(1234567.5)).toBe('1234567.5');
    expect(csvText(null)).toBe('');
    expect(csvText(Number.NaN)).toBe('');
    expect(csvText(true)).toBe('true');
  });

  it('exports projects with units in the headers and raw numbers in the cells', () => {
    const project = {
      id: 'p1',
      name: 'orders',
      phase: 'OPTIMIZING',
      workspace_id: null,
      settings: { slaMinutes: 6, autoApply: true },
      summary: {
        runs: 9,
        learning: null,
        last_run: { id: 'r9', status: 'SUCCESS', started_at: 1_700_000_000_000, runtime_minutes: 4.9 },
        cost_per_run_usd: 0.1875,
        runtime_minutes: 5.25,
        sla_hit_rate: 1,
        roi: null,
        insights: [],
      },
    } as unknown as ProjectRow['project'];
    const table = csvTable(
      projectColumns.flatMap((column) => column.csv),
      [{ project, workspaceName: '' }],
    );
    const record = Object.fromEntries(table.header.map((header, index) => [header, table.rows[0]![index]]));
    expect(record).toMatchObject({
      project: 'orders',
      workspace: '',
      last_runtime_s: '294',
      mean_runtime_s: '315',
      sla_s: '360',
      cost_per_run_usd: '0.1875',
      savings_to_date_usd: '',
      auto_apply: 'true',
    });
    for (const header of table.header) expect(header).toMatch(/^[a-z0-9_]+$/);
    expect(table.rows[0]!.join(',')).not.toMatch(/\$|min\b/);
  });
});

describe('run axis labels', () => {
  it('names each day once, on its first run, and shows the time of every run', () => {
    const day = Date.UTC(2026, 10, 5, 10, 0);
    const labels = runAxisLabels([day, day + 30 * 60_000, day + 86_400_000]);
    expect(labels[0]).toMatch(/^\d{2} \w{3}\n\d{2}:\d{2}$/);
    expect(labels[1]).toMatch(/^\d{2}:\d{2}$/);
    expect(labels[2]).toMatch(/^\d{2} \w{3}\n\d{2}:\d{2}$/);
    expect(labels[2]!.split('\n')[0]).not.toBe(labels[0]!.split('\n')[0]);
  });
});

describe('the market of a run, in the words the explanations use', () => {
  it('spells every market of both clouds and EMR the same way, never as the API does', () => {
    expect(
      [
        'SPOT_WITH_FALLBACK',
        'SPOT_WITH_FALLBACK_AZURE',
        'ON_DEMAND',
        'ON_DEMAND_AZURE',
        'SPOT',
        'SPOT_AZURE',
      ].map(marketWords),
    ).toEqual(['spot with fallback', 'spot with fallback', 'on-demand', 'on-demand', 'spot', 'spot']);
  });
});

describe('exact durations', () => {
  it('names minutes below two hours and drops the zero parts of longer ones', () => {
    expect(formatExactMinutes(4.5)).toBe('4.5 min');
    expect(formatExactMinutes(240)).toBe('4 h');
    expect(formatExactMinutes(245)).toBe('4 h 5 min');
    expect(formatExactMinutes(240.5)).toBe('4 h 30 s');
    expect(formatExactMinutes(125.25)).toBe('2 h 5 min 15 s');
    expect(formatExactMinutes(null)).toBe(formatExactMinutes(undefined));
  });
});
