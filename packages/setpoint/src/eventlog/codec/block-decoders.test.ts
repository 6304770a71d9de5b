import { ValidationError } from '@setpoint/foundation/errors';
import fc from 'fast-check';
import { compressBlock, compressBound } from 'lz4js';
import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { type BlockDecoders, decodeLz4Block, decodeSnappyBlock, jsBlockDecoders } from './block-decoders.js';
import { nativeBlockDecoders, pickNativeBlockDecoders } from './native-block-decoders.js';

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

/** The decoded bytes, or the problem of the corrupt error; any other error fails the property. */
function outcome(decode: () => Uint8Array): Buffer | 'corrupt' {
  try {
    return Buffer.from(decode());
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return 'corrupt';
  }
}

const loaded = nativeBlockDecoders();
// The prebuilt binaries cover Linux x64 (CI and the reference machine): there they must load.
const mustLoad = process.platform === 'linux' && process.arch === 'x64';

describe('native block decoders', () => {
  it('load where a prebuilt binary exists', () => {
    if (mustLoad) expect(loaded).toEqual({ available: true, decoders: expect.any(Object) });
    else expect(loaded.available || loaded.reason.length > 0).toBe(true);
  });

  it('are what auto picks where they load; js and a missing binary leave the JavaScript ones', () => {
    expect(pickNativeBlockDecoders('js')).toBeUndefined();
    if (loaded.available) {
      expect(pickNativeBlockDecoders('auto')).toBe(loaded.decoders);
      expect(pickNativeBlockDecoders('native')).toBe(loaded.decoders);
    } else {
      expect(pickNativeBlockDecoders('auto')).toBeUndefined();
      expect(() => pickNativeBlockDecoders('native')).toThrow(/unavailable/);
    }
  });

  describe.runIf(loaded.available)('against the JavaScript decoders', () => {
    const native = (loaded as { decoders: BlockDecoders }).decoders;

    it('decode what lz4js and snappyjs encode', () => {
      fc.assert(
        fc.property(data, (bytes) => {
          const { block } = lz4(bytes);
          if (block.length > 0) expect(Buffer.from(native.lz4(block, bytes.length, corrupt))).toEqual(bytes);
          expect(Buffer.from(native.snappy(compress(bytes), corrupt))).toEqual(bytes);
        }),
        { numRuns: 300 },
      );
    });

    it('refuse damaged blocks with the corrupt error only, and never disagree on what they accept', () => {
      fc.assert(
        fc.property(data, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), (bytes, at, byte, cut) => {
          const block = Buffer.from(lz4(bytes).block);
          const snappy = Buffer.from(compress(bytes));
          for (const damaged of [block, snappy]) {
            if (damaged.length > 0) damaged[at % damaged.length] = byte;
          }
          const cases: Array<(decoders: BlockDecoders) => Uint8Array> = [
            (decoders) => decoders.lz4(block, bytes.length, corrupt),
            (decoders) => decoders.lz4(block.subarray(0, cut % (block.length + 1)), bytes.length, corrupt),
            (decoders) => decoders.snappy(snappy, corrupt),
            (decoders) => decoders.snappy(snappy.subarray(0, cut % (snappy.length + 1)), corrupt),
          ];
          for (const decode of cases) {
            const fromNative = outcome(() => decode(native));
            const fromJs = outcome(() => decode(jsBlockDecoders));
            if (fromNative !== 'corrupt' && fromJs !== 'corrupt') expect(fromNative).toEqual(fromJs);
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  it('refuse a block claiming more bytes than its payload can hold, before allocating them', () => {
    const snappyBomb = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x04, 0x00]); // claims 1 GiB, holds one literal
    const decoders = loaded.available ? [jsBlockDecoders, loaded.decoders] : [jsBlockDecoders];
    for (const decoder of decoders) {
      expect(() => decoder.snappy(snappyBomb, corrupt)).toThrow(/claims more bytes than its payload/);
      expect(() => decoder.lz4(Buffer.from([0x10, 0x61]), 2 ** 30, corrupt)).toThrow(
        /claims more bytes than its payload/,
      );
    }
  });
});
