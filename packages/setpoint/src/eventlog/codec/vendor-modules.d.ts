// Type declarations for the two untyped pure-JS decoders Setpoint uses.
declare module 'lz4js' {
  /** Decodes one raw LZ4 block from src[sIndex, sIndex+sLength) into dst at dIndex; returns the end index in dst. */
  export function decompressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    dIndex: number,
  ): number;
  export function compressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    hashTable: Uint32Array,
  ): number;
  export function compressBound(n: number): number;
}

declare module 'snappyjs' {
  export function uncompress<T extends Uint8Array>(compressed: T, maxLength?: number): T;
  export function compress<T extends Uint8Array>(uncompressed: T): T;
}

declare module 'lz4js/xxh32.js' {
  /** XXH32 of src[index, index+length) with the given seed. */
  export function hash(seed: number, src: Uint8Array, index: number, length: number): number;
}
