/**
 * Reading an event log on two threads (`parseThreads: 2`: newline-aligned byte batches split and read
 * on a worker, results applied in the log's order) must give exactly the profile of one thread: the
 * same lines, tasks, skipped and malformed lines, warnings and line numbers, whatever the line endings
 * and wherever a batch or a chunk boundary falls (inside a line, inside a multi-byte character).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeEventLog, buildRunProfile, type EventLogUnit, readEventLog } from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';
import { generatedUnit } from './support/generated-log.js';

const fixtures = join(import.meta.dirname, '../fixtures/eventlog');
const sparkEvents = join(fixtures, 'spark-test-data/spark-events/local-1430917381534');
const sparkLines = readFileSync(sparkEvents, 'utf8')
  .split('\n')
  .filter((line) => line.length > 0);
const taskEnds = sparkLines.filter((line) => line.startsWith('{"Event":"SparkListenerTaskEnd"'));

async function bothWays(unit: EventLogUnit, maxLineBytes?: number) {
  const read = async (parseThreads: 1 | 2) => {
    const limits = maxLineBytes === undefined ? {} : { maxLineBytes };
    const { run, source } = await readEventLog(unit, { parseThreads, limits });
    return buildRunProfile(run, source);
  };
  return { two: await read(2), one: await read(1) };
}

/** `bytes` cut into pieces of about 1 MiB, each cut one byte into the multi-byte character after it. */
function cutInsideCharacters(bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  while (from < bytes.length) {
    let at = Math.min(bytes.length, from + (1 << 20));
    while (at < bytes.length && (bytes[at] as number) < 0xc0) at++; // the next lead byte of a multi-byte character
    if (at < bytes.length) at++;
    pieces.push(bytes.subarray(from, at));
    from = at;
  }
  return pieces;
}

describe('an event log read on two threads', () => {
  for (const path of [
    sparkEvents,
    join(fixtures, 'spark4/logs/local-1795239845845'),
    join(fixtures, 'spark4/logs/local-1795240089659.zstd'),
    join(fixtures, 'spark4/logs/eventlog_v2_local-1795240165860'),
    join(fixtures, 'generated/local-1430917381534.gz'),
    join(fixtures, 'real/xgboost_eventlog.zstd'),
    join(fixtures, 'real/local-1532512550423'),
  ]) {
    it(`${path.split('/').pop()} gives the one-thread profile`, async () => {
      const two = await analyzeEventLog(path, { parseThreads: 2 });
      const one = await analyzeEventLog(path, { parseThreads: 1 });
      expect(two).toEqual(one);
      expect(two.totals.tasks).toBeGreaterThan(0);
    });
  }

  it('keeps the order, counts and line numbers of odd lines across many batches', async () => {
    const odd = [
      '{"Event":"SparkListenerTaskEnd","Stage ID":', // cut JSON: malformed
      '{"Event":"SparkListenerTaskEnd","Task Info":{}}', // no stage: a bad shape
      `  ${taskEnds[0]}`, // leading spaces: read by the aggregator itself
      `${taskEnds[1]}\r`, // CRLF
      '\r',
      '',
      '',
      'not json at all',
      '{"Event":"SparkListenerTaskStart","Stage ID":1', // a skipped event without its closing brace
      '{"Event":"SomePlatformEvent","x":1}', // an unknown event
      `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Executor ID":"${'x'.repeat(5000)}"}}`, // over the line limit below
      '{"Event":"SparkListenerTaskEnd"}', // too short to be a task
    ];
    // odd lines after every 7th line, the log repeated to span several 1 MiB batches, the last line
    // without its newline
    const mixed = sparkLines.flatMap((line, index) => (index % 7 === 6 ? [line, ...odd] : [line]));
    const text = Array.from({ length: 40 }, () => mixed.join('\n')).join('\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 2 ** 20);
    const { two, one } = await bothWays(
      generatedUnit('mixed', () => [text]),
      4096,
    );
    expect(two).toEqual(one);
    expect(one.parse.malformedLines).toBeGreaterThan(0);
    expect(one.parse.unknownEvents).toBeGreaterThan(0);
    const overlong = (one.parse.issues ?? []).find((issue) => issue.code === 'line-too-long');
    expect(overlong?.lines?.length ?? 0).toBeGreaterThan(0);
    expect(one.totals.tasks).toBeGreaterThan(40 * taskEnds.length);
  });

  it('reads CRLF logs whose chunks end inside multi-byte characters', async () => {
    // executor ids and stage names in UTF-8 of 2, 3 and 4 bytes; every line ends in "\r\n"
    const text = Array.from({ length: 30 }, (_, copy) =>
      sparkLines
        .map((line) =>
          line
            .replaceAll('"Executor ID":"driver"', `"Executor ID":"exécuteur-执行器-${copy % 3}-🚀"`)
            .replaceAll('"Stage Name":"', '"Stage Name":"étape 阶段 🚀 '),
        )
        .join('\r\n'),
    ).join('\r\n');
    const bytes = Buffer.from(`${text}\r\n`);
    const { two, one } = await bothWays(generatedUnit('utf8', () => cutInsideCharacters(bytes)));
    expect(two).toEqual(one);
    expect(one.executors.timeline.some((executor) => executor.id.includes('执行器'))).toBe(true);
    expect(one.parse.malformedLines).toBe(0);
  });

  it('reads a log whose last line was cut off while it was written', async () => {
    const text = Array.from({ length: 20 }, () => sparkLines.join('\n')).join('\n');
    const cut = `${text}\n${(taskEnds[2] as string).slice(0, 200)}`;
    const { two, one } = await bothWays(generatedUnit('cut', () => [cut]));
    expect(two).toEqual(one);
    expect(one.parse.warnings).toContain(
      'the last line is incomplete (the log was cut off while being written)',
    );
  });

  it('fails as the one-thread read does when no line is an event', async () => {
    const unit = generatedUnit('nothing', () => ['{"Event":"SparkListenerTaskEnd","Stage ID":\n', 'x\n']);
    const two = await errorOf(readEventLog(unit, { parseThreads: 2 }));
    const one = await errorOf(readEventLog(unit, { parseThreads: 1 }));
    expect(two.code).toBe('EVENTLOG_NO_EVENTS');
    expect(two.message).toBe(one.message);
  });
});
