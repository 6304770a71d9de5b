import { ValidationError } from '@setpoint/foundation/errors';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { startWorker } from '../worker/start-worker.js';
import { Channel } from './channel.js';
import { decodeLz4BlockStream } from './lz4-block-stream.js';
import { decodeLzfStream } from './lzf-stream.js';
import { pickNativeBlockDecoders } from './native-block-decoders.js';
import { decodeSnappyJavaStream } from './snappy-java-stream.js';
import { decodeZstdStream } from './zstd-stream.js';

export type ThreadCodec = 'lz4' | 'snappy' | 'lzf' | 'zstd';

/**
 * Which decoder the thread runs. `native` is the native block decoders for lz4 and snappy and the
 * `zstd -dc` child for zstd: the parent has already checked that they are there.
 */
export type ThreadDecoderKind = 'js' | 'native';

export interface DecodeJob {
  codec: ThreadCodec;
  decoder: ThreadDecoderKind;
  source: string;
}

/** The decoded stream of `input` as `job` asks; runs in the worker (decode-worker.ts). */
export function threadDecoder(job: DecodeJob, input: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const { codec, source } = job;
  const native = job.decoder === 'native';
  switch (codec) {
    case 'lz4':
      return decodeLz4BlockStream(input, source, native ? pickNativeBlockDecoders('native') : undefined);
    case 'snappy':
      return decodeSnappyJavaStream(input, source, native ? pickNativeBlockDecoders('native') : undefined);
    case 'lzf':
      return decodeLzfStream(input, source);
    case 'zstd':
      return decodeZstdStream(input, source, native ? 'binary' : 'fzstd');
  }
}

export type ParentMessage =
  | { type: 'input'; chunk: Uint8Array }
  | { type: 'end' }
  | { type: 'ack' }
  | { type: 'stop' };
export type DecoderMessage =
  | { type: 'need' }
  | { type: 'output'; chunk: Uint8Array }
  | { type: 'done' }
  | { type: 'failed'; truncated: boolean; code: string | undefined; message: string };

/** Decoded chunks (~1 MiB each) the worker may run ahead of the reader; bounds its memory. */
export const maxOutstanding = 4;
/** Stored chunks sent ahead of what the decoder has taken. */
const inputAhead = 2;
/** How long a stopped worker may take to end its `zstd` child before it is terminated. */
const stopGraceMs = 2000;

/**
 * Decodes `stored` with `codec` in a worker thread, so decompression overlaps with parsing on the
 * other core. Stored chunks flow in and decoded chunks flow out under credit, so neither side
 * queues more than a few MiB. On return (the end, an error, a limit) the worker is asked to stop, so
 * that a `zstd` child it runs is killed and reaped by it, and is terminated if it has not ended soon.
 */
export async function* decodeOffThread(
  codec: ThreadCodec,
  stored: AsyncIterable<Uint8Array>,
  source: string,
  decoder: ThreadDecoderKind = 'js',
): AsyncGenerator<Uint8Array> {
  const job: DecodeJob = { codec, decoder, source };
  const worker = startWorker('./decode-worker', import.meta.url, { workerData: job });
  const output = new Channel<Uint8Array>();
  let requested = inputAhead;
  let wakePump: (() => void) | undefined;
  const post = (message: ParentMessage, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(message, transfer);
  let finished = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: DecoderMessage) => {
    if (message.type === 'need') {
      requested++;
      wakePump?.();
    } else if (message.type === 'output') output.push(message.chunk);
    else if (message.type === 'done') {
      finished = true;
      output.close();
    } else output.fail(revive(message, source, codec));
  });
  worker.on('error', (error) =>
    output.fail(corruptStream(source, codec, `decoder thread failed: ${error.message}`)),
  );
  worker.on('exit', (code) => {
    if (!finished) output.fail(corruptStream(source, codec, `decoder thread exited with code ${code}`));
  });
  let stopped = false;
  const pump = (async () => {
    for await (const chunk of stored) {
      if (stopped) return;
      while (requested === 0 && !stopped) await new Promise<void>((resolve) => (wakePump = resolve));
      if (stopped) return;
      requested--;
      const copy = new Uint8Array(chunk);
      post({ type: 'input', chunk: copy }, [copy.buffer]);
    }
    post({ type: 'end' });
  })().catch((error: unknown) => output.fail(error));
  try {
    for await (const chunk of output) {
      post({ type: 'ack' });
      yield chunk;
    }
  } finally {
    stopped = true;
    wakePump?.();
    post({ type: 'stop' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, stopGraceMs)));
    await Promise.race([exited, late]);
    clearTimeout(timer);
    await worker.terminate();
    await pump;
  }
}

function revive(message: Extract<DecoderMessage, { type: 'failed' }>, source: string, codec: string): Error {
  if (message.truncated) return new TruncatedStreamError(source, codec);
  if (message.code) return new ValidationError(message.code, message.message);
  return corruptStream(source, codec, message.message);
}
