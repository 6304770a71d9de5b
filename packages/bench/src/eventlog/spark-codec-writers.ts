/// <reference path="../../../setpoint/src/eventlog/codec/vendor-modules.d.ts" />
/**
 * Writers for the block formats Spark's codecs produce (lz4-java and snappy-java streams), used to
 * make fixtures (scripts/eventlog/generate-codec-fixtures.ts) and benchmark inputs (scaled-event-log.ts).
 */

import { compressSync as lz4CompressPrependingSize } from 'lz4-napi';
import { hash as xxh32 } from 'lz4js/xxh32.js';
import { compress as snappyCompress } from 'snappyjs';

/**
 * lz4-java LZ4BlockOutputStream: 32 KiB blocks, XXH32 checksums, an empty end block. The blocks come
 * from lz4_flex (`lz4-napi`): lz4-java, which Spark reads them with, rejects some of lz4js's blocks
 * as corrupt ("Error decoding offset …") that lenient decoders, Setpoint's among them, accept.
 */
export function lz4BlockStream(bytes: Uint8Array): Buffer {
  const blockSize = 32 * 1024;
  const pieces: Buffer[] = [];
  const header = (token: number, compressed: number, original: number, checksum: number) => {
    const head = Buffer.alloc(21);
    head.write('LZ4Block', 0, 'latin1');
    head[8] = token;
    head.writeInt32LE(compressed, 9);
    head.writeInt32LE(original, 13);
    head.writeInt32LE(checksum, 17);
    return head;
  };
  for (let offset = 0; offset < bytes.length; offset += blockSize) {
    const block = bytes.subarray(offset, offset + blockSize);
    // lz4-napi writes the block's decoded length first, as 4 bytes
    const compressed = lz4CompressPrependingSize(Buffer.from(block)).subarray(4);
    const checksum = xxh32(0x9747b28c, block, 0, block.length) & 0x0fffffff;
    if (compressed.length < block.length) {
      pieces.push(header(0x25, compressed.length, block.length, checksum), compressed);
    } else {
      pieces.push(header(0x15, block.length, block.length, checksum), Buffer.from(block));
    }
  }
  pieces.push(header(0x15, 0, 0, 0));
  return Buffer.concat(pieces);
}

/** snappy-java SnappyOutputStream: a 16-byte header, then [int32 BE length][raw Snappy block] chunks. */
export function snappyJavaStream(bytes: Uint8Array): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const pieces: Buffer[] = [header];
  for (let offset = 0; offset < bytes.length; offset += 32 * 1024) {
    const block = Buffer.from(snappyCompress(Buffer.from(bytes.subarray(offset, offset + 32 * 1024))));
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length);
    pieces.push(length, block);
  }
  return Buffer.concat(pieces);
}
