import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '@setpoint/foundation/errors';
import { parseS3Url, type S3Client } from '@setpoint/foundation/s3';
import { type Dispatcher, request } from 'undici';

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
 * https:// through a dispatcher that refuses non-public addresses at connect time (no redirects are
 * followed); s3:// through the configured S3 credentials.
 */
export function createEventLogFetcher(options: {
  dispatcher: Dispatcher;
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
      const response = await request(uri, { dispatcher: options.dispatcher, method: 'GET' });
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new Error(`GET ${new URL(uri).host} answered HTTP ${response.statusCode}`);
      }
      await pipeline(response.body, counter, createWriteStream(targetPath));
      return written;
    },
  };
}
