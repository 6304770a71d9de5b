/**
 * The worker side of `LinesOnTwoThreads`: reads each newline-aligned batch of bytes it is sent
 * (`readLineBatch`) and posts the result back, its numbers transferred, one reply per batch in order.
 */
import { parentPort } from 'node:worker_threads';
import { readLineBatch } from './line-batch.js';
import type { BatchReply, BatchRequest } from './lines-on-two-threads.js';

const port = parentPort;
port?.on('message', (request: BatchRequest) => {
  try {
    const batch = readLineBatch(
      Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength),
      request.maxLineBytes,
    );
    port.postMessage({ id: request.id, batch } satisfies BatchReply, [
      batch.ops.buffer as ArrayBuffer,
      batch.tasks.buffer as ArrayBuffer,
    ]);
  } catch (error) {
    port.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies BatchReply);
  }
});
