/**
 * Large event logs for the engine benchmarks (`npm run bench:eventlog`, `npm run bench:peers`): a real
 * log's events repeated with shifted job/stage/task/SQL ids and times until the file reaches a size,
 * then written in the codecs Spark and its tools read.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, createWriteStream, openSync, readSync, statSync, writeSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { decodeSource, resolveEventLog } from 'setpoint/eventlog/index';
import { lz4BlockStream, snappyJavaStream } from './spark-codec-writers.js';

/** The lines of the event log at `path` (any layout and codec), blank lines left out. */
export async function readLogLines(path: string, root: string): Promise<string[]> {
  const unit = await resolveEventLog(isAbsolute(path) ? path : join(root, path));
  const pieces: Buffer[] = [];
  for (const part of unit.parts) {
    const { chunks } = await decodeSource(part);
    for await (const chunk of chunks) pieces.push(Buffer.from(chunk));
  }
  return Buffer.concat(pieces)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0);
}

const idFields = ['Job ID', 'Stage ID', 'Task ID', 'executionId', 'RDD ID'];
const timeFields = ['Submission Time', 'Completion Time', 'Launch Time', 'Finish Time', 'Timestamp', 'time'];
const once = new Set([
  'SparkListenerLogStart',
  'SparkListenerApplicationStart',
  'SparkListenerApplicationEnd',
  'SparkListenerEnvironmentUpdate',
  'SparkListenerExecutorAdded',
  'SparkListenerBlockManagerAdded',
  'SparkListenerResourceProfileAdded',
  'DBCEventLoggingListenerMetadata',
]);

/** Returns a function that rewrites one body line for copy `n`: ids + n × idStride, times + n × span. */
function shifter(idStride: number, span: number): (line: string, copy: number) => string {
  const ids = new RegExp(`"(${idFields.join('|')})":(\\d+)`, 'g');
  const times = new RegExp(`"(${timeFields.join('|')})":(\\d{12,})`, 'g');
  const lists = /"(Parent IDs|Stage IDs)":\[([\d,]*)\]/g;
  return (line, copy) =>
    line
      .replace(ids, (_, key: string, value: string) => `"${key}":${Number(value) + copy * idStride}`)
      .replace(times, (_, key: string, value: string) => `"${key}":${Number(value) + copy * span}`)
      .replace(
        lists,
        (_, key: string, values: string) =>
          `"${key}":[${values
            .split(',')
            .filter(Boolean)
            .map((value) => Number(value) + copy * idStride)
            .join(',')}]`,
      );
}

/**
 * Writes `lines` to `path` with the body repeated until the file holds at least `targetBytes`: the
 * application's one-off events once at the start, its end once at the end.
 */
export async function writeScaledLog(
  lines: string[],
  path: string,
  targetBytes: number,
): Promise<{ bytes: number; copies: number }> {
  const eventOf = (line: string) => /"Event":"([^"]+)"/.exec(line)?.[1] ?? '';
  const head = lines.filter(
    (line) => once.has(eventOf(line)) && eventOf(line) !== 'SparkListenerApplicationEnd',
  );
  const tail = lines.filter((line) => eventOf(line) === 'SparkListenerApplicationEnd');
  const body = lines.filter((line) => !once.has(eventOf(line)));
  const maxId = Math.max(
    0,
    ...body.flatMap((line) =>
      [...line.matchAll(/"(?:Job ID|Stage ID|Task ID|executionId|RDD ID)":(\d+)/g)].map((m) => Number(m[1])),
    ),
  );
  const stamps = lines.flatMap((line) => [...line.matchAll(/":(\d{13})\b/g)].map((m) => Number(m[1])));
  const span = Math.max(...stamps) - Math.min(...stamps) + 1000;
  const shift = shifter(maxId + 1, span);
  const bodyBytes = Buffer.byteLength(body.join('\n')) + 1;
  const copies = Math.max(1, Math.ceil(targetBytes / bodyBytes));
  const out = createWriteStream(path);
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write(`${head.join('\n')}\n`);
  for (let copy = 0; copy < copies; copy++)
    await write(`${body.map((line) => shift(line, copy)).join('\n')}\n`);
  const end = tail[0] ? shift(tail[0], copies - 1) : '';
  await write(end ? `${end}\n` : '');
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return { bytes: statSync(path).size, copies };
}

/** Encodes `path` with a Spark block codec writer, 32 MiB at a time, into `target`. */
function encodeFile(path: string, target: string, encode: (bytes: Uint8Array) => Buffer): void {
  const input = openSync(path, 'r');
  const output = openSync(target, 'w');
  const slice = Buffer.alloc(32 * 2 ** 20);
  try {
    for (;;) {
      const bytesRead = readSync(input, slice, 0, slice.length, null);
      if (bytesRead === 0) break;
      writeSync(output, encode(slice.subarray(0, bytesRead)));
    }
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

export type BenchCodec = 'plain' | 'gzip' | 'zstd' | 'lz4' | 'snappy';

/**
 * Writes the plain log at `plain` in `codec` beside it and returns the file: gzip -1, zstd -3, and
 * lz4/snappy in the 32 KiB blocks of Spark's lz4-java and snappy-java streams. The extensions are
 * the ones Spark's reader takes the codec from (.lz4, .snappy, .zstd).
 */
export function encodeLog(plain: string, codec: BenchCodec): string {
  switch (codec) {
    case 'plain':
      return plain;
    case 'gzip':
      execFileSync('gzip', ['-1', '-k', '-f', plain]);
      return `${plain}.gz`;
    case 'zstd':
      execFileSync('zstd', ['-q', '-f', '-3', '-T2', plain, '-o', `${plain}.zstd`]);
      return `${plain}.zstd`;
    case 'lz4':
      encodeFile(plain, `${plain}.lz4`, lz4BlockStream);
      return `${plain}.lz4`;
    case 'snappy':
      encodeFile(plain, `${plain}.snappy`, snappyJavaStream);
      return `${plain}.snappy`;
  }
}
