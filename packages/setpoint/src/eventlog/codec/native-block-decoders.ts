import { createRequire } from 'node:module';
import { type BlockDecoders, type Corrupt, checkLz4Length, snappyHeader } from './block-decoders.js';

type Lz4Napi = typeof import('lz4-napi');
type SnappyNapi = typeof import('snappy');

/**
 * LZ4 and Snappy block decoders in Rust (lz4_flex through `lz4-napi`, the `snap` crate through
 * `snappy`), about three times the JavaScript decoders' speed. Both are safe-Rust decoders that
 * refuse damaged input with an error. Their prebuilt binaries come as per-platform npm packages; on
 * a platform without one, loading fails and the JavaScript decoders are used instead.
 */
export type NativeBlockDecoders =
  | { available: true; decoders: BlockDecoders }
  | { available: false; reason: string };

let loaded: NativeBlockDecoders | undefined;

export function nativeBlockDecoders(): NativeBlockDecoders {
  loaded ??= load();
  return loaded;
}

/**
 * Which LZ4 and Snappy block decoders to use: `auto` takes the native ones where their binary loads
 * and the JavaScript ones otherwise; `native` fails if the binary does not load.
 */
export type BlockDecoderChoice = 'auto' | 'native' | 'js';

/** The native decoders `choice` asks for, or undefined for the JavaScript ones. */
export function pickNativeBlockDecoders(choice: BlockDecoderChoice): BlockDecoders | undefined {
  if (choice === 'js') return undefined;
  const native = nativeBlockDecoders();
  if (native.available) return native.decoders;
  if (choice === 'native') throw new Error(`native LZ4/Snappy decoders unavailable: ${native.reason}`);
  return undefined;
}

function load(): NativeBlockDecoders {
  const require = createRequire(import.meta.url);
  let lz4: Lz4Napi;
  let snappy: SnappyNapi;
  try {
    lz4 = require('lz4-napi') as Lz4Napi;
    snappy = require('snappy') as SnappyNapi;
  } catch (error) {
    return {
      available: false,
      reason: error instanceof Error ? error.message.split('\n')[0]! : String(error),
    };
  }
  return {
    available: true,
    decoders: {
      lz4: (block, originalLength, corrupt) => {
        checkLz4Length(block, originalLength, corrupt);
        // lz4-napi takes the decoded length as a 4-byte little-endian prefix.
        const input = Buffer.allocUnsafe(4 + block.length);
        input.writeUInt32LE(originalLength, 0);
        input.set(block, 4);
        return exactLength(() => lz4.uncompressSync(input), originalLength, corrupt);
      },
      snappy: (block, corrupt) => {
        const { length } = snappyHeader(block, corrupt);
        // A copied output costs a memcpy; an external one costs the collector far more per block.
        const options = { asBuffer: true, copyOutputData: true };
        return exactLength(() => snappy.uncompressSync(block, options), length, corrupt);
      },
    },
  };
}

function exactLength(decode: () => string | Buffer, length: number, corrupt: Corrupt): Buffer {
  let output: string | Buffer;
  try {
    output = decode();
  } catch (error) {
    throw corrupt(`damaged block (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof output === 'string' || output.length !== length) throw corrupt('block length mismatch');
  return output;
}
