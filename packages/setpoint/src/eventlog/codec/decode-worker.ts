/**
 * The worker side of decodeOffThread: decodes one stream (lz4-java, snappy-java, LZF, zstd through
 * the `zstd` child or fzstd) fed as messages, and posts the decoded bytes back in ~1 MiB transferred chunks,
 * at most `maxOutstanding` ahead of what the parent has taken.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isAppError } from '@setpoint/foundation/errors';
import { TruncatedStreamError } from '../eventlog-errors.js';
import { Channel } from './channel.js';
import { coalesceChunks } from './coalesce-chunks.js';
import {
  type DecodeJob,
  type DecoderMessage,
  maxOutstanding,
  type ParentMessage,
  threadDecoder,
} from './off-thread.js';

const job = workerData as DecodeJob;
const port = parentPort!;
const input = new Channel<Uint8Array>();
let outstanding = 0;
let credit: (() => void) | undefined;
let stopping = false;
let stopRequested: () => void = () => {};
const stopped = new Promise<void>((resolve) => (stopRequested = resolve));

port.on('message', (message: ParentMessage) => {
  if (message.type === 'input') input.push(message.chunk);
  else if (message.type === 'end') input.close();
  else if (message.type === 'stop') {
    // The parent has stopped reading: end the decoder (its finally kills a `zstd` child) and wake
    // a loop waiting for credit.
    stopping = true;
    input.fail(new Error('decoding stopped'));
    credit?.();
    stopRequested();
  } else {
    outstanding--;
    credit?.();
    credit = undefined;
  }
});

/** Stored chunks as the decoder takes them; each one taken asks the parent for the next. */
async function* stored(): AsyncGenerator<Uint8Array> {
  for await (const chunk of input) {
    port.postMessage({ type: 'need' } satisfies DecoderMessage);
    yield chunk;
  }
}

const post = (message: DecoderMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

try {
  for await (const decoded of coalesceChunks(threadDecoder(job, stored()))) {
    if (stopping) break;
    const whole = decoded.byteOffset === 0 && decoded.byteLength === decoded.buffer.byteLength;
    const chunk = whole ? decoded : new Uint8Array(decoded);
    outstanding++;
    post({ type: 'output', chunk }, [chunk.buffer as ArrayBuffer]);
    if (outstanding >= maxOutstanding) await new Promise<void>((resolve) => (credit = resolve));
  }
  if (!stopping) post({ type: 'done' });
} catch (error) {
  if (!stopping)
    post({
      type: 'failed',
      truncated: error instanceof TruncatedStreamError,
      code: isAppError(error) ? error.code : undefined,
      message: error instanceof Error ? error.message : String(error),
    });
}
// Closing the port lets the thread end by itself once a `zstd` child has exited and been reaped;
// a thread terminated with the child still running would leave it a zombie.
await stopped;
port.close();
