import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExecutorCounts } from './analyze.js';

const repoRoot = join(import.meta.dirname, '../../../../..');
const fixtures = join(repoRoot, 'tests/fixtures/eventlog');
const plainLog = join(fixtures, 'spark-test-data/spark-events/local-1430917381534');

function setpoint(...args: string[]) {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin/setpoint.js'), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function valueAt(document: unknown, dottedKey: string): unknown {
  let value: unknown = document;
  for (const key of dottedKey.split('.')) {
    if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

describe('setpoint analyze', () => {
  it('prints a human report with summary, top stages, findings and what-if', () => {
    const { status, stdout, stderr } = setpoint('analyze', plainLog);
    expect(status).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('(local-1430917381534)');
    expect(stdout).toContain('Spark version');
    expect(stdout).toContain('Top stages by executor run time');
    expect(stdout).toContain('Findings');
    expect(stdout).toContain('What if');
    expect(stdout).toContain('(observed)');
  });

  it('--json prints the RunProfile with the documented keys', () => {
    const { status, stdout } = setpoint('analyze', plainLog, '--json', '--executors', '3,7');
    expect(status).toBe(0);
    const profile = JSON.parse(stdout) as unknown;
    const keys = [
      'schemaVersion',
      'application.id',
      'application.name',
      'application.sparkVersion',
      'application.startTime',
      'application.endTime',
      'application.durationMs',
      'totals.jobs',
      'totals.stages',
      'totals.tasks',
      'totals.failedTasks',
      'totals.executorRunTimeMs',
      'totals.executorCpuTimeMs',
      'totals.jvmGcTimeMs',
      'totals.inputBytes',
      'totals.outputBytes',
      'totals.shuffleReadBytes',
      'totals.shuffleWriteBytes',
      'totals.memoryBytesSpilled',
      'totals.diskBytesSpilled',
      'executors.totalAdded',
      'executors.maxConcurrent',
      'whatIf',
      'findings',
      'parse.bytesRead',
      'parse.malformedLines',
      'parse.warnings',
    ];
    for (const key of keys) expect(valueAt(profile, key), key).not.toBeUndefined();
    expect(valueAt(profile, 'application.id')).toBe('local-1430917381534');
    expect(valueAt(profile, 'totals.tasks')).toBe(110);
    const whatIf = valueAt(profile, 'whatIf') as Array<{ executors: number; estimatedDurationMs: number }>;
    expect(whatIf.map((point) => point.executors)).toEqual(expect.arrayContaining([3, 7]));
    for (const point of whatIf) expect(point.estimatedDurationMs).toBeGreaterThan(0);
  });

  it('--context picks one Spark context of a Databricks cluster-log folder', () => {
    const parent = join(fixtures, 'generated/databricks/0213-181500-abcd1234_10_139_64_5');
    const listed = setpoint('analyze', parent);
    expect(listed.status).toBe(2);
    expect(listed.stderr).toContain('8880912756278443690');
    const chosen = setpoint('analyze', parent, '--context', '8880912756278443690', '--json');
    expect(chosen.status).toBe(0);
    expect(valueAt(JSON.parse(chosen.stdout), 'platform.kind')).toBe('databricks');
  });

  it('--help shows examples', () => {
    const { status, stdout } = setpoint('analyze', '--help');
    expect(status).toBe(0);
    expect(stdout).toContain('Examples:');
    expect(stdout).toContain('--executors');
  });
});

describe('setpoint analyze on bad input', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-analyze-'));
    writeFileSync(join(scratch, 'empty'), '');
    writeFileSync(
      join(scratch, 'garbage.bin'),
      Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)),
    );
    writeFileSync(
      join(scratch, 'driver.log'),
      '23/11/07 10:00:00 INFO SparkContext: Running Spark version 3.5.0\n',
    );
    writeFileSync(join(scratch, 'notes.json'), '{"not":"an event"}\n');
    const line = Buffer.alloc(200 * 1024 * 1024, 0x61);
    line.write('{"Event":"SparkListenerLogStart","Spark Version":"', 0, 'latin1');
    writeFileSync(join(scratch, 'one-huge-line'), line);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const cases: Array<[string, () => string, RegExp]> = [
    ['a missing path', () => join(scratch, 'missing'), /no such file or directory/],
    ['an empty file', () => join(scratch, 'empty'), /the file is empty/],
    ['binary garbage', () => join(scratch, 'garbage.bin'), /not a Spark event log/],
    ['a text file that is not an event log', () => join(scratch, 'driver.log'), /not a Spark event log/],
    [
      'JSON that is not an event log',
      () => join(scratch, 'notes.json'),
      /not a Spark event log \(no Spark listener events/,
    ],
    [
      'a truncated compressed stream',
      () => join(fixtures, 'generated/local-1430917381534.truncated.gz'),
      /truncated/,
    ],
    ['a single 200 MB line', () => join(scratch, 'one-huge-line'), /line 1 is longer than 32 MiB/],
    ['a directory without logs', () => mkdtempSync(join(scratch, 'nothing-')), /no Spark event log found/],
  ];
  for (const [name, path, message] of cases) {
    it(`${name}: one clear line on stderr, non-zero exit, no stack`, () => {
      const { status, stdout, stderr } = setpoint('analyze', path());
      expect(status).not.toBe(0);
      expect(stdout).toBe('');
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^setpoint: /);
      expect(lines[0]).toMatch(message);
    });
  }

  it('--debug adds the stack trace', () => {
    const { status, stderr } = setpoint('analyze', join(scratch, 'empty'), '--debug');
    expect(status).toBe(2);
    expect(stderr).toMatch(/\n\s+at /);
  });

  it('rejects a bad --executors list', () => {
    const { status, stderr } = setpoint('analyze', plainLog, '--executors', '4,zero');
    expect(status).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--executors expects positive whole numbers');
  });
});

describe('parseExecutorCounts', () => {
  it('reads comma-separated counts', () => {
    expect(parseExecutorCounts('4, 8,16')).toEqual([4, 8, 16]);
  });
  it('rejects zero, negatives and fractions', () => {
    for (const bad of ['0', '-2', '1.5', '', '4,,8'])
      expect(() => parseExecutorCounts(bad)).toThrow(/--executors/);
  });
});
