import { ValidationError } from '@setpoint/foundation/errors';
import fc from 'fast-check';
import { compressBlock, compressBound } from 'lz4js';
import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { decodeLz4Block, decodeSnappyBlock } from './block-decoders.js';

const corrupt = (problem: string) => new ValidationError('EVENTLOG_CORRUPT', problem);

/** Text with the long repeats event logs have, so blocks hold long overlapping and distant matches. */
const repetitive = fc
  .tuple(
    fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 8 }),
    fc.array(fc.nat(), { maxLength: 400 }),
  )
  .map(([words, picks]) => Buffer.from(picks.map((pick) => words[pick % words.length]).join('')));
const data = fc.oneof(
  repetitive,
  fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)),
);

function lz4(bytes: Buffer): { block: Uint8Array; length: number } {
  const out = new Uint8Array(compressBound(bytes.length));
  const size = compressBlock(bytes, out, 0, bytes.length, new Uint32Array(1 << 16));
  return { block: out.subarray(0, size), length: bytes.length };
}

function onlyTypedErrors(decode: () => unknown): void {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
  }
}

describe('block decoders', () => {
  it('decode what lz4js and snappyjs encode', () => {
    fc.assert(
      fc.property(data, (bytes) => {
        const { block, length } = lz4(bytes);
        if (block.length > 0) expect(decodeLz4Block(block, length, corrupt).equals(bytes)).toBe(true);
        expect(decodeSnappyBlock(compress(bytes), corrupt).equals(bytes)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuse damaged blocks with the corrupt error only', () => {
    fc.assert(
      fc.property(data, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), (bytes, at, byte, cut) => {
        const encoded = lz4(bytes);
        const block = Buffer.from(encoded.block);
        const length = encoded.length;
        const snappy = Buffer.from(compress(bytes));
        for (const damaged of [block, snappy]) {
          if (damaged.length > 0) damaged[at % damaged.length] = byte;
        }
        onlyTypedErrors(() => decodeLz4Block(block, length, corrupt));
        onlyTypedErrors(() => decodeLz4Block(block.subarray(0, cut % (block.length + 1)), length, corrupt));
        onlyTypedErrors(() => decodeSnappyBlock(snappy, corrupt));
        onlyTypedErrors(() => decodeSnappyBlock(snappy.subarray(0, cut % (snappy.length + 1)), corrupt));
      }),
      { numRuns: 300 },
    );
  });
});
