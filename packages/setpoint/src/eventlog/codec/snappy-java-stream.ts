import { corruptStream } from '../eventlog-errors.js';
import { type BlockDecoders, jsBlockDecoders } from './block-decoders.js';
import { decodeFramedStream } from './framed-stream.js';

const streamMagic = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const headerBytes = 16; // magic + version (int32 BE) + compatible version (int32 BE)

/**
 * Decodes snappy-java's SnappyOutputStream format (what Spark writes for `.snappy`): a 16-byte
 * header, then chunks of [int32 BE length][raw Snappy block]. The header may reappear mid-stream.
 */
export function decodeSnappyJavaStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
  decoders: BlockDecoders = jsBlockDecoders,
): AsyncGenerator<Uint8Array> {
  return decodeFramedStream(input, source, 'snappy', (queue) => {
    if (queue.available < 4) return null;
    if (queue.byteAt(0) === 0x82) {
      if (queue.available < headerBytes) return null;
      if (!queue.startsWith(streamMagic)) throw corruptStream(source, 'snappy', 'bad stream header');
      queue.take(headerBytes);
      return undefined;
    }
    const length = queue.readInt32BE(0);
    if (length < 0) throw corruptStream(source, 'snappy', 'negative chunk length');
    if (queue.available < 4 + length) return null;
    queue.take(4);
    return decoders.snappy(queue.take(length), (problem) => corruptStream(source, 'snappy', problem));
  });
}
