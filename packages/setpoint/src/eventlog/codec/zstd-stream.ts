import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { Decompress } from 'fzstd';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { Channel } from './channel.js';
import { decodedChunkBytes } from './coalesce-chunks.js';
import { builtInZstdDecompress, decodeWithZlib } from './zstd-zlib.js';

/**
 * Which zstd decoder to use: Node's built-in one (Node ≥ 22.15) where there is one, else the `zstd`
 * binary, several times faster than pure-JS fzstd; `auto` picks in that order.
 */
export type ZstdDecoder = 'auto' | 'zlib' | 'binary' | 'fzstd';

let zstdBinaryPath: string | null | undefined;

export function findZstdBinary(): string | null {
  if (zstdBinaryPath !== undefined) return zstdBinaryPath;
  zstdBinaryPath = null;
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, 'zstd');
    try {
      accessSync(candidate, constants.X_OK);
      zstdBinaryPath = candidate;
      break;
    } catch {
      // not in this PATH entry
    }
  }
  return zstdBinaryPath;
}

/** The decoder `choice` resolves to on this Node and this machine. */
export function resolveZstdDecoder(choice: ZstdDecoder): Exclude<ZstdDecoder, 'auto'> {
  if (choice !== 'auto') return choice;
  if (builtInZstdDecompress) return 'zlib';
  return findZstdBinary() ? 'binary' : 'fzstd';
}

/**
 * Decodes zstd (Spark writes many concatenated frames; the last one may be open in an in-progress
 * log) with Node's built-in decoder, a `zstd -dc` child fed through its stdin, or fzstd. Compressed
 * bytes are few, so feeding them through this thread costs little and keeps the stored-bytes count
 * (progress) exact.
 */
export function decodeZstdStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
  choice: ZstdDecoder,
): AsyncGenerator<Uint8Array> {
  const decoder = resolveZstdDecoder(choice);
  if (decoder === 'zlib') {
    if (!builtInZstdDecompress)
      throw corruptStream(
        source,
        'zstd',
        `Node ${process.version} has no built-in zstd decoder (22.15 or later has)`,
      );
    return decodeWithZlib(input, source, builtInZstdDecompress);
  }
  if (decoder === 'fzstd') return decodeWithFzstd(input, source);
  const binary = findZstdBinary();
  if (!binary) throw corruptStream(source, 'zstd', 'the zstd binary is not on PATH');
  return decodeWithBinary(binary, input, source);
}

async function* decodeWithBinary(
  binary: string,
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const child = spawn(binary, ['-d', '-c', '-q'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const { stdin, stdout, stderr: errors } = child;
  const feed = Readable.from(input);
  feed.on('error', (error) => stdout.destroy(error));
  stdin.on('error', () => {}); // zstd exits early on corrupt input; the exit code reports it
  feed.pipe(stdin);
  let stderr = '';
  errors.setEncoding('utf8');
  errors.on('data', (text: string) => {
    if (stderr.length < 4096) stderr += text;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const decoded = fillChunks(stdout);
  try {
    yield* decoded;
    const code = await exited;
    if (code !== 0) {
      if (/end of file|premature end|truncated|incomplete/i.test(stderr))
        throw new TruncatedStreamError(source, 'zstd');
      const firstLine = stderr.split('\n')[0] ?? '';
      const reason = firstLine.split(': ').pop()?.trim() || `zstd exited with code ${code}`;
      throw corruptStream(source, 'zstd', reason);
    }
  } finally {
    feed.destroy();
    if (child.exitCode === null) child.kill();
  }
}

/** Filled chunks queued before the pipe is paused: bounds memory when the reader is slower. */
const filledAhead = 2;

/**
 * The pipe's bytes in chunks of `decodedChunkBytes`, each read (64 KiB) copied straight into the
 * chunk being filled: a 'data' handler costs about a sixth less CPU per byte than iterating the
 * stream and joining its reads afterwards, and the pipe is read as soon as the child writes.
 */
async function* fillChunks(pipe: Readable): AsyncGenerator<Uint8Array> {
  const filled = new Channel<Uint8Array>();
  let chunk = Buffer.allocUnsafeSlow(decodedChunkBytes);
  let at = 0;
  pipe.on('data', (piece: Buffer) => {
    for (let from = 0; from < piece.length; ) {
      const count = Math.min(piece.length - from, chunk.length - at);
      piece.copy(chunk, at, from, from + count);
      at += count;
      from += count;
      if (at === chunk.length) {
        filled.push(chunk);
        chunk = Buffer.allocUnsafeSlow(decodedChunkBytes);
        at = 0;
      }
    }
    if (filled.size >= filledAhead) pipe.pause();
  });
  pipe.on('end', () => {
    if (at > 0) filled.push(chunk.subarray(0, at));
    filled.close();
  });
  pipe.on('error', (error) => filled.fail(error));
  // Closed without an end (destroyed): what was read is all there is; the exit code tells the rest.
  pipe.on('close', () => filled.close());
  for await (const full of filled) {
    if (filled.size < filledAhead) pipe.resume();
    yield full;
  }
}

async function* decodeWithFzstd(
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const output: Uint8Array[] = [];
  const decompressor = new Decompress((data) => {
    output.push(Buffer.from(data)); // fzstd reuses its window buffer; keep a copy
  });
  const push = (chunk: Uint8Array, final: boolean): void => {
    try {
      decompressor.push(chunk, final);
    } catch (error) {
      if (final) throw new TruncatedStreamError(source, 'zstd');
      throw corruptStream(source, 'zstd', error instanceof Error ? error.message : String(error));
    }
  };
  for await (const chunk of input) {
    push(chunk, false);
    while (output.length > 0) yield output.shift()!;
  }
  push(new Uint8Array(0), true);
  while (output.length > 0) yield output.shift()!;
}
