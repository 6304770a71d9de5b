import type { ValidationError } from '@setpoint/foundation/errors';

/**
 * Raw LZ4 and Snappy block decoders. Literal runs and back-references are copied with
 * `set`/`copyWithin` rather than byte by byte (lz4js and snappyjs copy one byte at a time), which
 * makes decoding several times faster on event logs' long matches. Every length and offset is
 * checked against both buffers; `corrupt(problem)` builds the error thrown on damaged input.
 */
export type Corrupt = (problem: string) => ValidationError;

/** One implementation of the two raw block formats: this file's JavaScript, or native (native-block-decoders.ts). */
export interface BlockDecoders {
  lz4(block: Uint8Array, originalLength: number, corrupt: Corrupt): Uint8Array;
  snappy(block: Uint8Array, corrupt: Corrupt): Uint8Array;
}

/**
 * The most bytes a block can expand to, per payload byte: an LZ4 match grows by 255 per length
 * byte, a 3-byte Snappy copy yields at most 64 bytes. A header claiming more is damaged, and is
 * refused before anything is allocated for it.
 */
const lz4MaxExpansion = 255;
const snappyMaxExpansion = 22;
const expansionSlack = 64;

/** Checks an LZ4 block's claimed length against what its payload can hold. */
export function checkLz4Length(block: Uint8Array, originalLength: number, corrupt: Corrupt): void {
  if (originalLength > block.length * lz4MaxExpansion + expansionSlack)
    throw corrupt('block claims more bytes than its payload can hold');
}

/** Reads a raw Snappy block's varint length header: the decoded length and the header's size. */
export function snappyHeader(input: Uint8Array, corrupt: Corrupt): { length: number; headerBytes: number } {
  let ip = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (ip >= input.length || shift > 28) throw corrupt('bad length header');
    const byte = input[ip++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (length > 2 ** 31 - 1) throw corrupt('block longer than 2 GiB');
  if (length > input.length * snappyMaxExpansion + expansionSlack)
    throw corrupt('block claims more bytes than its payload can hold');
  return { length, headerBytes: ip };
}

/** Copies of fewer bytes than this run as a loop: a native call costs more for them. */
const nativeCopyBytes = 32;

function copyMatch(output: Uint8Array, at: number, offset: number, length: number): void {
  const from = at - offset;
  if (offset >= length && length >= nativeCopyBytes) {
    output.copyWithin(at, from, from + length);
    return;
  }
  for (let index = 0; index < length; index++) output[at + index] = output[from + index]!;
}

function copyLiterals(output: Uint8Array, at: number, input: Uint8Array, from: number, length: number): void {
  if (length >= nativeCopyBytes) {
    output.set(input.subarray(from, from + length), at);
    return;
  }
  for (let index = 0; index < length; index++) output[at + index] = input[from + index]!;
}

/** Decodes one raw LZ4 block of `originalLength` bytes. */
export function decodeLz4Block(input: Uint8Array, originalLength: number, corrupt: Corrupt): Buffer {
  checkLz4Length(input, originalLength, corrupt);
  const output = Buffer.allocUnsafe(originalLength);
  let ip = 0;
  let op = 0;
  const end = input.length;
  while (ip < end) {
    const token = input[ip++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let byte: number;
      do {
        if (ip >= end) throw corrupt('literal length runs past the block');
        byte = input[ip++]!;
        literals += byte;
      } while (byte === 255);
    }
    if (ip + literals > end || op + literals > originalLength)
      throw corrupt('literal run overflows the block');
    copyLiterals(output, op, input, ip, literals);
    ip += literals;
    op += literals;
    if (ip === end) break; // the last sequence carries literals only
    if (ip + 2 > end) throw corrupt('match offset runs past the block');
    const offset = input[ip]! | (input[ip + 1]! << 8);
    ip += 2;
    let matchLength = token & 15;
    if (matchLength === 15) {
      let byte: number;
      do {
        if (ip >= end) throw corrupt('match length runs past the block');
        byte = input[ip++]!;
        matchLength += byte;
      } while (byte === 255);
    }
    matchLength += 4;
    if (offset === 0 || offset > op || op + matchLength > originalLength) {
      throw corrupt('back-reference outside the block');
    }
    copyMatch(output, op, offset, matchLength);
    op += matchLength;
  }
  if (op !== originalLength) throw corrupt('block length mismatch');
  return output;
}

/** Decodes one raw Snappy block (a varint length, then literal and copy elements). */
export function decodeSnappyBlock(input: Uint8Array, corrupt: Corrupt): Buffer {
  const { length, headerBytes } = snappyHeader(input, corrupt);
  let ip = headerBytes;
  const output = Buffer.allocUnsafe(length);
  let op = 0;
  const end = input.length;
  while (ip < end) {
    const tag = input[ip++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let literals = tag >>> 2;
      if (literals >= 60) {
        const bytes = literals - 59;
        if (ip + bytes > end) throw corrupt('literal length runs past the block');
        literals = 0;
        for (let index = 0; index < bytes; index++) literals += input[ip + index]! * 2 ** (8 * index);
        ip += bytes;
      }
      literals += 1;
      if (ip + literals > end || op + literals > length) throw corrupt('literal run overflows the block');
      copyLiterals(output, op, input, ip, literals);
      ip += literals;
      op += literals;
      continue;
    }
    let matchLength: number;
    let offset: number;
    if (kind === 1) {
      if (ip >= end) throw corrupt('copy runs past the block');
      matchLength = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[ip++]!;
    } else if (kind === 2) {
      if (ip + 2 > end) throw corrupt('copy runs past the block');
      matchLength = (tag >>> 2) + 1;
      offset = input[ip]! | (input[ip + 1]! << 8);
      ip += 2;
    } else {
      if (ip + 4 > end) throw corrupt('copy runs past the block');
      matchLength = (tag >>> 2) + 1;
      offset = (input[ip]! | (input[ip + 1]! << 8) | (input[ip + 2]! << 16)) + input[ip + 3]! * 2 ** 24;
      ip += 4;
    }
    if (offset === 0 || offset > op || op + matchLength > length)
      throw corrupt('back-reference outside the block');
    copyMatch(output, op, offset, matchLength);
    op += matchLength;
  }
  if (op !== length) throw corrupt('block length mismatch');
  return output;
}

export const jsBlockDecoders: BlockDecoders = { lz4: decodeLz4Block, snappy: decodeSnappyBlock };
