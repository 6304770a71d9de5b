import { uncompress } from 'snappyjs';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { ByteQueue } from './byte-queue.js';

const streamMagic = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const headerBytes = 16; // magic + version (int32 BE) + compatible version (int32 BE)

/**
 * Decodes snappy-java's SnappyOutputStream format (what Spark writes for `.snappy`): a 16-byte
 * header, then chunks of [int32 BE length][raw Snappy block]. The header may reappear mid-stream.
 */
export async function* decodeSnappyJavaStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const queue = new ByteQueue();
  for await (const chunk of input) {
    queue.append(chunk);
    while (queue.available >= 4) {
      if (queue.byteAt(0) === 0x82) {
        if (queue.available < headerBytes) break;
        if (!queue.startsWith(streamMagic)) throw corruptStream(source, 'snappy', 'bad stream header');
        queue.take(headerBytes);
        continue;
      }
      const length = queue.readInt32BE(0);
      if (length < 0) throw corruptStream(source, 'snappy', 'negative chunk length');
      if (queue.available < 4 + length) break;
      queue.take(4);
      const block = queue.take(length);
      try {
        yield uncompress(block);
      } catch (error) {
        throw corruptStream(source, 'snappy', error instanceof Error ? error.message : String(error));
      }
    }
  }
  if (queue.available > 0) throw new TruncatedStreamError(source, 'snappy');
}
