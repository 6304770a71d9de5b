/**
 * Splits a zstd stream (RFC 8878: one or more frames, data or skippable, back to back) into pieces
 * that never cross a frame boundary, reading only frame and block headers. Node's built-in decoder
 * stops after the first frame when one write holds the end of a frame and more input (Node 22's, and
 * later ones under some buffer sizes): fed this way, each frame begins a write of its own.
 */

const dataFrameMagic = 0xfd2fb528;
const skippableMagicMask = 0xfffffff0;
const skippableMagic = 0x184d2a50;

export interface FramePiece {
  bytes: Uint8Array;
  /** The piece starts a frame. */
  frameStart: boolean;
}

type State =
  /** Awaiting a frame's first bytes: magic and descriptor (and a skippable frame's size). */
  | { at: 'frame' }
  /** Skipping `left` bytes of the current frame's body (a block, a checksum, a header's fields). */
  | { at: 'body'; left: number; next: 'block' | 'frame' }
  | { at: 'block'; checksum: boolean };

export class ZstdFrameSplitter {
  #state: State = { at: 'frame' };
  /** Header bytes that arrived split across chunks, waited for before a decision. */
  #pending: Uint8Array = new Uint8Array(0);
  #frameChecksum = false;

  /** True once the input seen so far ends exactly at a frame boundary. */
  get atFrameBoundary(): boolean {
    return this.#state.at === 'frame' && this.#pending.length === 0;
  }

  /** The pieces of `chunk`, each within one frame; throws on bytes that are not a zstd frame. */
  split(chunk: Uint8Array): FramePiece[] {
    const input = this.#pending.length > 0 ? concat(this.#pending, chunk) : chunk;
    this.#pending = new Uint8Array(0);
    const pieces: FramePiece[] = [];
    let pieceStart = 0;
    let frameStart = false;
    let at = 0;
    const cut = (startsFrame: boolean) => {
      if (at > pieceStart) pieces.push({ bytes: input.subarray(pieceStart, at), frameStart });
      pieceStart = at;
      frameStart = startsFrame;
    };
    while (at < input.length) {
      const state = this.#state;
      if (state.at === 'body') {
        const take = Math.min(state.left, input.length - at);
        at += take;
        if (take < state.left) {
          this.#state = { ...state, left: state.left - take };
          break;
        }
        this.#state =
          state.next === 'block' ? { at: 'block', checksum: this.#frameChecksum } : { at: 'frame' };
        continue;
      }
      if (state.at === 'block') {
        if (input.length - at < 3) break;
        const header = input[at]! | (input[at + 1]! << 8) | (input[at + 2]! << 16);
        at += 3;
        const last = (header & 1) === 1;
        const type = (header >> 1) & 3;
        const size = header >>> 3;
        if (type === 3) throw new Error('reserved block type');
        const content = type === 1 ? 1 : size;
        const checksumBytes = last && state.checksum ? 4 : 0;
        this.#state = last
          ? { at: 'body', left: content + checksumBytes, next: 'frame' }
          : { at: 'body', left: content, next: 'block' };
        continue;
      }
      // a frame starts here
      if (input.length - at < 4) break;
      const magic = readUint32(input, at);
      if ((magic & skippableMagicMask) >>> 0 === skippableMagic) {
        if (input.length - at < 8) break;
        cut(true);
        const size = readUint32(input, at + 4);
        at += 8;
        this.#state = { at: 'body', left: size, next: 'frame' };
        continue;
      }
      if (magic !== dataFrameMagic) throw new Error('unknown frame magic');
      if (input.length - at < 5) break;
      const descriptor = input[at + 4]!;
      const singleSegment = (descriptor & 0x20) !== 0;
      if ((descriptor & 0x08) !== 0) throw new Error('reserved frame header bit set');
      const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
      const contentSizeFlag = descriptor >> 6;
      const contentSizeBytes =
        contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][contentSizeFlag]!;
      cut(true);
      this.#frameChecksum = (descriptor & 0x04) !== 0;
      at += 5;
      this.#state = {
        at: 'body',
        left: (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes,
        next: 'block',
      };
    }
    // An incomplete header waits for the next chunk; everything before it is handed on.
    const headerWait = this.#state.at !== 'body' && at < input.length;
    if (headerWait) this.#pending = input.slice(at);
    if (at > pieceStart) pieces.push({ bytes: input.subarray(pieceStart, at), frameStart });
    return pieces;
  }
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first, 0);
  joined.set(second, first.length);
  return joined;
}
