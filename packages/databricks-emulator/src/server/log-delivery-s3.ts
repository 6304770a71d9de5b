import { parseS3Url, S3Client, type S3Credentials } from '@setpoint/foundation/s3';
import type { LogSink } from './log-delivery.js';

export interface S3DeliveryOptions {
  /** An S3-compatible endpoint standing in for AWS S3, e.g. `http://127.0.0.1:4568`. */
  endpoint: string;
  region?: string;
  credentials: S3Credentials;
}

/**
 * Delivers cluster logs whose `cluster_log_conf` is `{s3: {destination}}` to an S3-compatible store.
 * Uploads run one after another in delivery order, so a later `eventlog` never lands before an
 * earlier one; `afterWrites` runs once everything queued before it has landed.
 */
export class S3LogSink implements LogSink {
  readonly client: S3Client;
  readonly failures: string[] = [];
  #tail: Promise<void> = Promise.resolve();

  constructor(options: S3DeliveryOptions) {
    this.client = new S3Client({
      region: options.region ?? 'us-east-1',
      endpoint: options.endpoint,
      credentials: options.credentials,
    });
  }

  write(path: string, data: Uint8Array): void {
    const { bucket, key } = parseS3Url(path);
    this.#enqueue(() => this.client.putObject(bucket, key, data));
  }

  /** S3 has no folders. */
  mkdirs(): void {}

  removeTree(path: string): void {
    const { bucket, key } = parseS3Url(path);
    this.#enqueue(async () => {
      for (const object of await this.client.list(bucket, `${key.replace(/\/+$/, '')}/`))
        await this.client.deleteObject(bucket, object.key);
    });
  }

  afterWrites(done: () => void): void {
    this.#enqueue(async () => done());
  }

  /** Resolves when every queued upload has finished. */
  settle(): Promise<void> {
    return this.#tail;
  }

  async close(): Promise<void> {
    await this.settle();
    this.client.close();
  }

  #enqueue(task: () => Promise<void>): void {
    this.#tail = this.#tail.then(task).catch((error: unknown) => {
      this.failures.push(error instanceof Error ? error.message : String(error));
    });
  }
}
