/** Bytes received but not yet consumed by a block decoder; whole blocks are read from the front. */
export class ByteQueue {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;

  append(chunk: Uint8Array): void {
    const rest = this.buffer.subarray(this.offset);
    this.buffer =
      rest.length === 0
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
        : Buffer.concat([rest, chunk]);
    this.offset = 0;
  }

  get available(): number {
    return this.buffer.length - this.offset;
  }

  /** The next `length` bytes without consuming them (a view; valid until the next append). */
  peek(length: number): Buffer {
    return this.buffer.subarray(this.offset, this.offset + length);
  }

  take(length: number): Buffer {
    const bytes = this.peek(length);
    this.offset += length;
    return bytes;
  }

  startsWith(signature: Uint8Array): boolean {
    if (this.available < signature.length) return false;
    for (let index = 0; index < signature.length; index++) {
      if (this.buffer[this.offset + index] !== signature[index]) return false;
    }
    return true;
  }

  readInt32LE(at: number): number {
    return this.buffer.readInt32LE(this.offset + at);
  }

  readInt32BE(at: number): number {
    return this.buffer.readInt32BE(this.offset + at);
  }

  readUInt16BE(at: number): number {
    return this.buffer.readUInt16BE(this.offset + at);
  }

  byteAt(at: number): number {
    return this.buffer[this.offset + at] ?? 0;
  }
}
