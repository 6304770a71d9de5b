import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';

/** Decodes gzip (Databricks' rotated `eventlog-*.gz` parts); concatenated members decode too. */
export async function* decodeGzipStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  pipeline(Readable.from(input), gunzip, () => {});
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'Z_BUF_ERROR') throw new TruncatedStreamError(source, 'gzip');
    if (code === 'Z_DATA_ERROR')
      throw corruptStream(source, 'gzip', error instanceof Error ? error.message : '');
    throw error;
  }
}
