import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decompress } from 'fzstd';
import { describe, expect, it } from 'vitest';
import { RunAggregator } from './run-aggregator.js';
import { taskEndSchema } from './schema.js';
import { readTaskEnd } from './task-end-reader.js';

const fixtures = join(import.meta.dirname, '../../../../tests/fixtures/eventlog');

function taskEndLines(): string[] {
  const spark4 = readFileSync(join(fixtures, 'spark4/logs/local-1795239845845'), 'utf8');
  const spark1 = readFileSync(join(fixtures, 'spark-test-data/spark-events/local-1422981780767'), 'utf8');
  return [...spark4.split('\n'), ...spark1.split('\n')].filter((line) =>
    line.startsWith('{"Event":"SparkListenerTaskEnd"'),
  );
}

describe('readTaskEnd', () => {
  const lines = taskEndLines();

  it('reads the same figures the documented schema describes', () => {
    expect(lines.length).toBeGreaterThan(50);
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      const checked = taskEndSchema.parse(event);
      const task = readTaskEnd(event)!;
      const metrics = checked['Task Metrics'];
      expect(task.stageId).toBe(checked['Stage ID']);
      expect(task.launchTime).toBe(checked['Task Info']['Launch Time']);
      expect(task.finishTime).toBe(checked['Task Info']['Finish Time']);
      expect(task.executorRunTimeMs).toBe(metrics?.['Executor Run Time'] ?? 0);
      expect(task.executorCpuTimeNs).toBe(metrics?.['Executor CPU Time'] ?? 0);
      expect(task.jvmGcTimeMs).toBe(metrics?.['JVM GC Time'] ?? 0);
      expect(task.shuffleWriteBytes).toBe(metrics?.['Shuffle Write Metrics']?.['Shuffle Bytes Written'] ?? 0);
      expect(task.shuffleRemoteBytesRead).toBe(metrics?.['Shuffle Read Metrics']?.['Remote Bytes Read'] ?? 0);
      expect(task.diskBytesSpilled).toBe(metrics?.['Disk Bytes Spilled'] ?? 0);
      expect(task.inputBytes).toBe(metrics?.['Input Metrics']?.['Bytes Read'] ?? 0);
    }
  });

  it('classifies outcomes from the end reason', () => {
    const outcomes = lines.map((line) => readTaskEnd(JSON.parse(line) as Record<string, unknown>)!.outcome);
    expect(outcomes.filter((outcome) => outcome === 'failed')).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome === 'success').length).toBe(lines.length - 2);
  });
});

describe('RunAggregator fast paths', () => {
  function aggregate(text: string) {
    const aggregator = new RunAggregator();
    const buffer = Buffer.from(text);
    let start = 0;
    for (let end = buffer.indexOf(10); end !== -1; end = buffer.indexOf(10, start)) {
      aggregator.acceptLine(buffer, start, end, false);
      start = end + 1;
    }
    return aggregator.finish();
  }

  it('leaving out task accumulables and SQL plans changes no figure', () => {
    const log = Buffer.from(
      decompress(readFileSync(join(fixtures, 'real/join_agg_on_yarn_eventlog.zstd'))),
    ).toString();
    // Reformatting each line (a space after the first brace) defeats the prefix fast path, so the
    // aggregator must fully parse every line: both routes must agree.
    const reformatted = log
      .split('\n')
      .map((line) => (line.startsWith('{') ? `{ ${line.slice(1)}` : line))
      .join('\n');
    const fast = aggregate(log);
    const full = aggregate(reformatted);
    expect(fast.parse.skippedEvents).toBeGreaterThan(0);
    expect(fast.stages).toEqual(full.stages);
    expect(fast.sqlExecutions).toEqual(full.sqlExecutions);
    expect(fast.sqlExecutions.length).toBeGreaterThan(0);
    expect(fast.sqlExecutions.every((execution) => execution.startTime !== null)).toBe(true);
    expect(fast.jobs).toEqual(full.jobs);
  });
});
