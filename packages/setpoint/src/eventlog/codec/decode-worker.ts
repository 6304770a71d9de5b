/**
 * The worker side of decodeOffThread: decodes one block-codec stream (lz4-java, snappy-java, LZF,
 * zstd with fzstd) fed as messages, and posts the decoded bytes back in ~1 MiB transferred chunks,
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
  threadDecoders,
} from './off-thread.js';

const job = workerData as DecodeJob;
const port = parentPort!;
const input = new Channel<Uint8Array>();
let outstanding = 0;
let credit: (() => void) | undefined;

port.on('message', (message: ParentMessage) => {
  if (message.type === 'input') input.push(message.chunk);
  else if (message.type === 'end') input.close();
  else {
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
  for await (const decoded of coalesceChunks(threadDecoders[job.codec](stored(), job.source))) {
    const whole = decoded.byteOffset === 0 && decoded.byteLength === decoded.buffer.byteLength;
    const chunk = whole ? decoded : new Uint8Array(decoded);
    outstanding++;
    post({ type: 'output', chunk }, [chunk.buffer as ArrayBuffer]);
    if (outstanding >= maxOutstanding) await new Promise<void>((resolve) => (credit = resolve));
  }
  post({ type: 'done' });
} catch (error) {
  post({
    type: 'failed',
    truncated: error instanceof TruncatedStreamError,
    code: isAppError(error) ? error.code : undefined,
    message: error instanceof Error ? error.message : String(error),
  });
}
