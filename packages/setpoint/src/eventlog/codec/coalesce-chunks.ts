/** Decoded bytes are handed on in chunks of about this size: fewer, larger chunks cost less per byte downstream. */
export const decodedChunkBytes = 1 << 20;

/**
 * Joins the small chunks a decoder yields (32 KiB codec blocks, 64 KiB pipe reads) into chunks of
 * at least `target` bytes; larger chunks pass through uncopied.
 */
export async function* coalesceChunks(
  chunks: AsyncIterable<Uint8Array>,
  target = decodedChunkBytes,
): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = () => {
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return joined;
  };
  try {
    for await (const chunk of chunks) {
      if (pendingBytes === 0 && chunk.length >= target) {
        yield chunk;
        continue;
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= target) yield flush();
    }
  } catch (error) {
    // What was decoded before a truncated or damaged block is still the log's: hand it on first.
    if (pendingBytes > 0) yield flush();
    throw error;
  }
  if (pendingBytes > 0) yield flush();
}
