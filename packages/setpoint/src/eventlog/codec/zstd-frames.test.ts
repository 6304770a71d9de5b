import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZstdFrameSplitter } from './zstd-frames.js';

/** A zstd data frame of raw and RLE blocks (valid RFC 8878; what an encoder emits for incompressible data). */
function rawFrame(
  content: Uint8Array,
  options: { checksum?: boolean; blockBytes?: number } = {},
): Uint8Array {
  const blockBytes = options.blockBytes ?? 1000;
  // descriptor: single segment, 4-byte content size, checksum flag
  const descriptor = 0x20 | (2 << 6) | (options.checksum ? 0x04 : 0);
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, descriptor];
  const size = content.length;
  parts.push(size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, (size >>> 24) & 0xff);
  if (content.length === 0) parts.push(1, 0, 0); // one empty last raw block
  for (let at = 0; at < content.length; at += blockBytes) {
    const block = content.subarray(at, at + blockBytes);
    const last = at + blockBytes >= content.length ? 1 : 0;
    const rle = block.length > 1 && block.every((byte) => byte === block[0]);
    const header = last | ((rle ? 1 : 0) << 1) | (block.length << 3);
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff);
    parts.push(...(rle ? [block[0]!] : block));
  }
  if (options.checksum) parts.push(1, 2, 3, 4);
  return Uint8Array.from(parts);
}

function skippableFrame(payload: number): Uint8Array {
  return Uint8Array.from([0x5a, 0x2a, 0x4d, 0x18, payload, 0, 0, 0, ...new Array<number>(payload).fill(7)]);
}

/** Feeds `stream` in chunks of the given sizes; returns each piece's bytes and whether it starts a frame. */
function splitInChunks(stream: Uint8Array, sizes: number[]) {
  const splitter = new ZstdFrameSplitter();
  const pieces: Array<{ bytes: number[]; frameStart: boolean }> = [];
  let at = 0;
  for (let index = 0; at < stream.length; index += 1) {
    const size = Math.max(1, sizes[index % sizes.length] ?? 1);
    for (const piece of splitter.split(stream.subarray(at, at + size)))
      pieces.push({ bytes: [...piece.bytes], frameStart: piece.frameStart });
    at += size;
  }
  return { pieces, atBoundary: splitter.atFrameBoundary };
}

/** The pieces joined back, frame by frame (a new frame starts only where a piece says so). */
function framesOf(pieces: Array<{ bytes: number[]; frameStart: boolean }>): number[][] {
  const frames: number[][] = [];
  for (const piece of pieces) {
    if (piece.frameStart || frames.length === 0) frames.push([]);
    frames.at(-1)!.push(...piece.bytes);
  }
  return frames;
}

describe('ZstdFrameSplitter', () => {
  const frames = [
    rawFrame(Uint8Array.from({ length: 2500 }, (_, index) => index % 251)),
    skippableFrame(5),
    rawFrame(new Uint8Array(3000).fill(65), { checksum: true }),
    rawFrame(new Uint8Array(0)),
    rawFrame(Uint8Array.from([1, 2, 3]), { checksum: true }),
  ];
  const stream = Uint8Array.from(frames.flatMap((frame) => [...frame]));

  it('cuts a stream at every frame boundary, whatever the chunk sizes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 12 }), (sizes) => {
        const { pieces, atBoundary } = splitInChunks(stream, sizes);
        expect(framesOf(pieces)).toEqual(frames.map((frame) => [...frame]));
        expect(atBoundary).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('knows when the input ends inside a frame', () => {
    for (const cut of [2, 6, 12, frames[0]!.length - 1, frames[0]!.length + 3, stream.length - 2]) {
      expect(splitInChunks(stream.subarray(0, cut), [7]).atBoundary, `cut at ${cut}`).toBe(false);
    }
  });

  it('refuses bytes that do not start a frame', () => {
    const garbage = Uint8Array.from([...frames[0]!, 0x7b, 0x22, 0x45, 0x76, 0x65]);
    expect(() => splitInChunks(garbage, [100_000])).toThrow('unknown frame magic');
    const reserved = Uint8Array.from(frames[0]!);
    reserved[4] = reserved[4]! | 0x08;
    expect(() => splitInChunks(reserved, [100_000])).toThrow('reserved frame header bit');
  });
});
