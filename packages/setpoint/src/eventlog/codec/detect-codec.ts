/** The container or compression format of one event-log file, decided from its first bytes. */
export type Codec = 'plain' | 'gzip' | 'zstd' | 'lz4' | 'snappy' | 'lzf' | 'zip' | 'lz4-frame' | 'unknown';

const signatures: ReadonlyArray<{ codec: Codec; bytes: readonly number[] }> = [
  { codec: 'lz4', bytes: [0x4c, 0x5a, 0x34, 0x42, 0x6c, 0x6f, 0x63, 0x6b] }, // "LZ4Block" (lz4-java block stream)
  { codec: 'snappy', bytes: [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00] }, // "\x82SNAPPY\0" (snappy-java)
  { codec: 'zstd', bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { codec: 'lz4-frame', bytes: [0x04, 0x22, 0x4d, 0x18] },
  { codec: 'zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { codec: 'gzip', bytes: [0x1f, 0x8b] },
  { codec: 'lzf', bytes: [0x5a, 0x56] }, // "ZV"
];

/** The longest signature; callers pass at least this many bytes when the file has them. */
export const codecSniffBytes = 8;

export function detectCodec(head: Uint8Array): Codec {
  for (const { codec, bytes } of signatures) {
    if (head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte)) return codec;
  }
  return startsLikeJson(head) ? 'plain' : 'unknown';
}

function startsLikeJson(head: Uint8Array): boolean {
  const hasByteOrderMark = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  for (let index = hasByteOrderMark ? 3 : 0; index < head.length; index++) {
    const byte = head[index];
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b; // "{"
  }
  return false;
}
