import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import {
  S3Client as AwsS3Client,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  paginateListObjectsV2,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { AppError, NotFoundError, UpstreamError, ValidationError } from '@setpoint/foundation/errors';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface S3ConnectionOptions {
  region: string;
  /** `http(s)://host[:port]` of an S3-compatible server (MinIO, s3rver…): path-style addressing is used. */
  endpoint?: string | undefined;
  /** Keys, or a provider the SDK calls (and refreshes through): the default chain, an assumed role. */
  credentials: S3Credentials | (() => Promise<S3Credentials>);
  /** Attempts per request inside the SDK (its own retry with backoff); default 3. */
  maxAttempts?: number | undefined;
  /**
   * The node:http agents requests go through: Setpoint passes agents that refuse non-public
   * addresses at connect time for an endpoint a user configured.
   */
  agents?: { httpAgent: HttpAgent; httpsAgent: HttpsAgent } | undefined;
  /**
   * A request whose socket stays silent this long (no answer, or a body that stopped mid-way) fails and
   * is retried; default 60 s. Without it a stalled read would hold its job forever.
   */
  idleTimeoutMs?: number | undefined;
}

/** The default for `idleTimeoutMs`. */
export const defaultS3IdleTimeoutMs = 60_000;

export interface S3ObjectSummary {
  key: string;
  size: number;
  lastModified: number | undefined;
}

/**
 * Every S3 access of Setpoint (event-log blobs, `s3://` event-log URIs, cluster logs) goes through
 * this client, built on the AWS SDK.
 */
export class S3Client {
  readonly sdk: AwsS3Client;

  constructor(readonly options: S3ConnectionOptions) {
    this.sdk = new AwsS3Client({
      region: options.region,
      credentials: options.credentials,
      maxAttempts: options.maxAttempts ?? 3,
      ...(options.endpoint && { endpoint: options.endpoint, forcePathStyle: true }),
      requestHandler: {
        ...options.agents,
        socketTimeout: options.idleTimeoutMs ?? defaultS3IdleTimeoutMs,
      },
      // S3-compatible servers do not all know the newer default checksums; AWS accepts either way.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** The object's body as a Node stream, read as it arrives. */
  async getObject(bucket: string, key: string): Promise<Readable> {
    const response = await this.#call(`GET s3://${bucket}/${key}`, () =>
      this.sdk.send(new GetObjectCommand({ Bucket: bucket, Key: key })),
    );
    if (!(response.Body instanceof Readable))
      throw new UpstreamError('S3_REQUEST_FAILED', `GET s3://${bucket}/${key} returned no body stream`);
    return response.Body;
  }

  async putObject(bucket: string, key: string, body: Uint8Array | string): Promise<void> {
    await this.#call(`PUT s3://${bucket}/${key}`, () =>
      this.sdk.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body })),
    );
  }

  /** Streams a local file up (the length is sent, so no multipart or chunked encoding is needed). */
  async putFile(bucket: string, key: string, filePath: string): Promise<void> {
    const { size } = await stat(filePath);
    await this.#call(`PUT s3://${bucket}/${key}`, () =>
      this.sdk.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: createReadStream(filePath),
          ContentLength: size,
        }),
      ),
    );
  }

  async deleteObject(bucket: string, key: string): Promise<void> {
    await this.#call(`DELETE s3://${bucket}/${key}`, () =>
      this.sdk.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
    );
  }

  /** ListObjectsV2 over every page. */
  async list(
    bucket: string,
    prefix: string,
    options: { pageSize?: number } = {},
  ): Promise<S3ObjectSummary[]> {
    const objects: S3ObjectSummary[] = [];
    await this.#call(`LIST s3://${bucket}/${prefix}`, async () => {
      const pages = paginateListObjectsV2(
        { client: this.sdk, ...(options.pageSize && { pageSize: options.pageSize }) },
        { Bucket: bucket, Prefix: prefix },
      );
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          if (object.Key === undefined) continue;
          objects.push({
            key: object.Key,
            size: object.Size ?? 0,
            lastModified: object.LastModified?.getTime(),
          });
        }
      }
    });
    return objects;
  }

  /** One ListObjectsV2 call of at most `maxKeys` keys: proves list access without walking a big prefix. */
  async probeList(bucket: string, prefix: string, maxKeys = 10): Promise<number> {
    const page = await this.#call(`LIST s3://${bucket}/${prefix}`, () =>
      this.sdk.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: maxKeys })),
    );
    return page.KeyCount ?? page.Contents?.length ?? 0;
  }

  async listKeys(bucket: string, prefix: string): Promise<string[]> {
    return (await this.list(bucket, prefix)).map((object) => object.key);
  }

  close(): void {
    this.sdk.destroy();
  }

  async #call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw describeS3Error(error, what);
    }
  }
}

const deniedCodes = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'AllAccessDisabled',
]);

/**
 * The SDK's error is not kept as the cause: it carries the whole signed request. A missing bucket or refused credentials will not heal by retrying, so they get codes of their own;
 * anything else (5xx, throttling, a dropped connection) is an upstream failure worth retrying.
 */
export function describeS3Error(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    if (error.name === 'NoSuchBucket')
      return new NotFoundError('S3_BUCKET_NOT_FOUND', `${what}: the bucket does not exist`);
    if (error.name === 'NoSuchKey' || (status === 404 && what.startsWith('GET')))
      return new NotFoundError('S3_OBJECT_NOT_FOUND', `${what}: no such object`);
    if (deniedCodes.has(error.name) || status === 403)
      return new AppError(
        'upstream',
        'S3_ACCESS_DENIED',
        `${what}: access denied (${error.name}); the AWS credentials need s3:ListBucket and s3:GetObject on it`,
      );
    return new UpstreamError('S3_REQUEST_FAILED', `${what} failed: ${error.name} (HTTP ${status ?? '?'})`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new UpstreamError('S3_REQUEST_FAILED', `${what} failed: ${message}`);
}

/** S3 failures that retrying cannot fix. */
export function isPermanentS3Error(error: unknown): boolean {
  return (
    error instanceof AppError && (error.code === 'S3_BUCKET_NOT_FOUND' || error.code === 'S3_ACCESS_DENIED')
  );
}

/** `s3://bucket/some/key` → bucket and key (the key without its leading slash, decoded). */
export function parseS3Url(url: string): { bucket: string; key: string } {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname)
    throw new ValidationError('S3_INVALID_URL', `not an s3://bucket/key URL: ${url}`);
  return { bucket: parsed.hostname, key: decodeURIComponent(parsed.pathname.replace(/^\//, '')) };
}
