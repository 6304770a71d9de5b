/** Event logs generated while they are read: hostile inputs far larger than any fixture, never on disk. */
import type { ByteSource, EventLogUnit } from 'setpoint/eventlog/index';

const chunkBytes = 1 << 20;

/** A one-part event log whose bytes come from `generate()`, re-run on every open. */
export function generatedUnit(name: string, generate: () => Iterable<string | Uint8Array>): EventLogUnit {
  return {
    name,
    path: name,
    layout: 'file',
    inProgress: false,
    parts: [generatedSource(name, generate)],
    needsHeaderOrdering: false,
  };
}

export function generatedSource(name: string, generate: () => Iterable<string | Uint8Array>): ByteSource {
  return {
    name,
    size: 0,
    async readHead(length) {
      for (const chunk of chunked(generate())) return chunk.subarray(0, length);
      return new Uint8Array(0);
    },
    async *open() {
      yield* chunked(generate());
    },
  };
}

/** Joins small pieces into ~1 MiB chunks, as a file read would deliver them. */
function* chunked(pieces: Iterable<string | Uint8Array>): Generator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece);
    pending.push(bytes);
    pendingBytes += bytes.length;
    if (pendingBytes >= chunkBytes) {
      yield Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

export const logStart = '{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}\n';
export const applicationStart =
  '{"Event":"SparkListenerApplicationStart","App Name":"hostile","App ID":"app-1","Timestamp":1700000000000,"User":"spark"}\n';
export const applicationEnd = '{"Event":"SparkListenerApplicationEnd","Timestamp":1700000060000}\n';

/**
 * An EnvironmentUpdate whose Spark Properties hold `count` generated keys (`prefix` + a base-36 number)
 * after the given real ones, written in pieces of 10,000 keys.
 */
export function* environmentUpdate(
  real: Record<string, string>,
  count: number,
  prefix = 'k',
): Generator<string> {
  yield `{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"17"},"Spark Properties":{`;
  yield Object.entries(real)
    .map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join(',');
  for (let from = 0; from < count; from += 10_000) {
    let piece = '';
    for (let index = from; index < Math.min(count, from + 10_000); index++)
      piece += `,"${prefix}${index.toString(36)}":"v"`;
    yield piece;
  }
  yield '},"System Properties":{"java.version":"17"}}\n';
}
