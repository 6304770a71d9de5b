import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ValidationError } from '@setpoint/foundation/errors';
import { parseS3Url, type S3Client } from '@setpoint/foundation/s3';

/** Fails a stream once more than `limit` bytes went through; reports the count at the end. */
export function byteLimit(limit: number, onDone: (bytes: number) => void = () => undefined): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > limit) {
        callback(new ValidationError('UPLOAD_TOO_LARGE', `event log exceeds the ${limit}-byte upload limit`));
        return;
      }
      callback(null, chunk);
    },
    flush(callback) {
      onDone(bytes);
      callback();
    },
  });
}

export interface EventLogFetcher {
  /** Downloads an `eventlog_uri` into `targetPath`; returns the bytes written. */
  fetchTo(uri: string, targetPath: string): Promise<number>;
}

/**
 * https:// through the SSRF-guarded fetch (non-public addresses refused at connect time, each
 * redirect hop checked again); s3:// through the configured S3 credentials.
 */
export function createEventLogFetcher(options: {
  fetch: (url: string) => Promise<Response>;
  s3: S3Client | undefined;
  maxBytes: number;
}): EventLogFetcher {
  return {
    async fetchTo(uri, targetPath) {
      let written = 0;
      const counter = byteLimit(options.maxBytes, (bytes) => {
        written = bytes;
      });
      if (uri.startsWith('s3://')) {
        if (!options.s3)
          throw new ValidationError(
            'S3_NOT_CONFIGURED',
            'eventlog_uri is s3:// but no S3 credentials are configured',
          );
        const { bucket, key } = parseS3Url(uri);
        await pipeline(await options.s3.getObject(bucket, key), counter, createWriteStream(targetPath));
        return written;
      }
      const response = await options.fetch(uri);
      if (response.status !== 200 || !response.body) {
        await response.body?.cancel();
        throw new Error(`GET ${new URL(uri).host} answered HTTP ${response.status}`);
      }
      await pipeline(
        Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
        counter,
        createWriteStream(targetPath),
      );
      return written;
    },
  };
}
