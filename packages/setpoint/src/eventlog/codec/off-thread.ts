import { ValidationError } from '@setpoint/foundation/errors';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { startWorker } from '../worker/start-worker.js';
import { Channel } from './channel.js';
import { decodeLz4BlockStream } from './lz4-block-stream.js';
import { decodeLzfStream } from './lzf-stream.js';
import { decodeSnappyJavaStream } from './snappy-java-stream.js';
import { decodeZstdStream } from './zstd-stream.js';

type Decoder = (input: AsyncIterable<Uint8Array>, source: string) => AsyncIterable<Uint8Array>;

/** The pure-JS decoders, which cost the reading thread as much as parsing does when run on it. */
export const threadDecoders = {
  lz4: decodeLz4BlockStream,
  snappy: decodeSnappyJavaStream,
  lzf: decodeLzfStream,
  zstd: (input, source) => decodeZstdStream(input, source, 'fzstd'),
} satisfies Record<string, Decoder>;

export type ThreadCodec = keyof typeof threadDecoders;

export interface DecodeJob {
  codec: ThreadCodec;
  source: string;
}

export type ParentMessage = { type: 'input'; chunk: Uint8Array } | { type: 'end' } | { type: 'ack' };
export type DecoderMessage =
  | { type: 'need' }
  | { type: 'output'; chunk: Uint8Array }
  | { type: 'done' }
  | { type: 'failed'; truncated: boolean; code: string | undefined; message: string };

/** Decoded chunks (~1 MiB each) the worker may run ahead of the reader; bounds its memory. */
export const maxOutstanding = 4;
/** Stored chunks sent ahead of what the decoder has taken. */
const inputAhead = 2;

/**
 * Decodes `stored` with `codec` in a worker thread, so decompression overlaps with parsing on the
 * other core. Stored chunks flow in and decoded chunks flow out under credit, so neither side
 * queues more than a few MiB; returning early (an error, a limit) terminates the worker.
 */
export async function* decodeOffThread(
  codec: ThreadCodec,
  stored: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const job: DecodeJob = { codec, source };
  const worker = startWorker('./decode-worker', import.meta.url, { workerData: job });
  const output = new Channel<Uint8Array>();
  let requested = inputAhead;
  let wakePump: (() => void) | undefined;
  const post = (message: ParentMessage, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(message, transfer);
  let finished = false;
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
    await worker.terminate();
    await pump;
  }
}

function revive(message: Extract<DecoderMessage, { type: 'failed' }>, source: string, codec: string): Error {
  if (message.truncated) return new TruncatedStreamError(source, codec);
  if (message.code) return new ValidationError(message.code, message.message);
  return corruptStream(source, codec, message.message);
}
