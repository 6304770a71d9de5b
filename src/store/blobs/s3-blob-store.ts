import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { UpstreamError } from '../../errors/index.js';
import { assertSafeBlobPath, type BlobStore } from './blob-store.js';
import { emptyPayloadHash, type S3Credentials, signS3Request } from './s3-signer.js';

export interface S3Location {
  /** `https://host[:port]` of an S3-compatible endpoint; path-style addressing is used with it. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  prefix: string;
}

/** Minimal S3 client: signed GET/PUT/DELETE and ListObjectsV2, streaming bodies. */
export class S3Client {
  constructor(
    private readonly credentials: S3Credentials,
    private readonly region: string,
    private readonly endpoint?: string | undefined,
  ) {}

  objectUrl(bucket: string, key: string): URL {
    const encodedKey = key.split('/').map(encodeURIComponent).join('/');
    if (this.endpoint) return new URL(`${this.endpoint.replace(/\/$/, '')}/${bucket}/${encodedKey}`);
    return new URL(`https://${bucket}.s3.${this.region}.amazonaws.com/${encodedKey}`);
  }

  async getObject(bucket: string, key: string): Promise<Readable> {
    const url = this.objectUrl(bucket, key);
    const response = await this.#send('GET', url, emptyPayloadHash, {});
    return response.body;
  }

  async putObject(bucket: string, key: string, filePath: string): Promise<void> {
    const { size } = await stat(filePath);
    const url = this.objectUrl(bucket, key);
    const response = await this.#send(
      'PUT',
      url,
      'UNSIGNED-PAYLOAD',
      { 'content-length': String(size) },
      createReadStream(filePath),
    );
    await response.body.dump();
  }

  async deleteObject(bucket: string, key: string): Promise<void> {
    const response = await this.#send('DELETE', this.objectUrl(bucket, key), emptyPayloadHash, {});
    await response.body.dump();
  }

  async listKeys(bucket: string, prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const url = this.objectUrl(bucket, '');
      url.searchParams.set('list-type', '2');
      url.searchParams.set('prefix', prefix);
      if (token) url.searchParams.set('continuation-token', token);
      const response = await this.#send('GET', url, emptyPayloadHash, {});
      const xml = await response.body.text();
      for (const match of xml.matchAll(/<Key>([^<]+)<\/Key>/g)) keys.push(decodeXml(match[1] ?? ''));
      token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(xml)?.[1];
    } while (token);
    return keys;
  }

  async #send(method: string, url: URL, payloadHash: string, extra: Record<string, string>, body?: Readable) {
    const headers = signS3Request(
      { method, url, headers: extra, payloadHash },
      this.credentials,
      this.region,
    );
    const response = await request(url, { method, headers, body: body ?? null });
    if (response.statusCode >= 300) {
      const text = await response.body.text();
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? String(response.statusCode);
      throw new UpstreamError('S3_REQUEST_FAILED', `S3 ${method} ${url.pathname} failed: ${code}`);
    }
    return response;
  }
}

function decodeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : "'",
  );
}

export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly location: S3Location,
  ) {}

  #key(bundle: string, name = ''): string {
    const prefix = this.location.prefix.replace(/^\/|\/$/g, '');
    return [prefix, bundle, name].filter((part) => part.length > 0).join('/');
  }

  async putFile(bundle: string, name: string, filePath: string): Promise<void> {
    assertSafeBlobPath(bundle);
    assertSafeBlobPath(name);
    await this.client.putObject(this.location.bucket, this.#key(bundle, name), filePath);
    await rm(filePath, { force: true });
  }

  async withLocalCopy<T>(bundle: string, use: (directory: string) => Promise<T>): Promise<T> {
    assertSafeBlobPath(bundle);
    const directory = await mkdtemp(path.join(tmpdir(), 'setpoint-blob-'));
    try {
      const bundleKey = `${this.#key(bundle)}/`;
      for (const key of await this.client.listKeys(this.location.bucket, bundleKey)) {
        const name = key.slice(bundleKey.length);
        assertSafeBlobPath(name);
        const body = await this.client.getObject(this.location.bucket, key);
        await pipeline(body, createWriteStream(path.join(directory, path.basename(name))));
      }
      return await use(directory);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  async deleteBundle(bundle: string): Promise<void> {
    assertSafeBlobPath(bundle);
    for (const key of await this.client.listKeys(this.location.bucket, `${this.#key(bundle)}/`)) {
      await this.client.deleteObject(this.location.bucket, key);
    }
  }
}

export function parseS3Url(url: string): { bucket: string; key: string } {
  const parsed = new URL(url);
  return { bucket: parsed.hostname, key: decodeURIComponent(parsed.pathname.replace(/^\//, '')) };
}
