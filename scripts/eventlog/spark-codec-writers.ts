/**
 * Writers for the block formats Spark's codecs produce (lz4-java and snappy-java streams), used to
 * make fixtures (generate-codec-fixtures.ts) and benchmark inputs (bench-eventlog.ts).
 */
import { compressBlock, compressBound } from 'lz4js';
import { hash as xxh32 } from 'lz4js/xxh32.js';
import { compress as snappyCompress } from 'snappyjs';

/** lz4-java LZ4BlockOutputStream: 32 KiB blocks, XXH32 checksums, an empty end block. */
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
  const compressed = new Uint8Array(compressBound(blockSize));
  const hashTable = new Uint32Array(1 << 16);
  for (let offset = 0; offset < bytes.length; offset += blockSize) {
    const block = bytes.subarray(offset, offset + blockSize);
    hashTable.fill(0);
    const length = compressBlock(block, compressed, 0, block.length, hashTable);
    const checksum = xxh32(0x9747b28c, block, 0, block.length) & 0x0fffffff;
    if (length > 0 && length < block.length) {
      pieces.push(header(0x25, length, block.length, checksum), Buffer.from(compressed.subarray(0, length)));
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
