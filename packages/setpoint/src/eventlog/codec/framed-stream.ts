import { TruncatedStreamError } from '../eventlog-errors.js';
import { ByteQueue } from './byte-queue.js';

/**
 * Reads one frame off the front of the queue: its decoded bytes, `undefined` for a frame with none
 * (a header, an empty block), or `null` when the frame has not fully arrived yet.
 */
export type FrameReader = (queue: ByteQueue) => Uint8Array | undefined | null;

/**
 * The one loop of the block codecs (lz4, lzf, snappy): bytes are queued as they arrive and whole frames
 * decoded from the front; bytes left over at the end are a truncated stream.
 */
export async function* decodeFramedStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
  codec: string,
  readFrame: FrameReader,
): AsyncGenerator<Uint8Array> {
  const queue = new ByteQueue();
  for await (const chunk of input) {
    queue.append(chunk);
    for (let frame = readFrame(queue); frame !== null; frame = readFrame(queue)) {
      if (frame !== undefined) yield frame;
    }
  }
  if (queue.available > 0) throw new TruncatedStreamError(source, codec);
}
