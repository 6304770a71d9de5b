import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@setpoint/foundation/s3';
import { assertSafeBlobPath, type BlobStore } from './blob-store.js';

export interface S3Location {
  bucket: string;
  prefix: string;
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
    await this.client.putFile(this.location.bucket, this.#key(bundle, name), filePath);
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

  async listBundles(prefix: string): Promise<Array<{ bundle: string; modifiedAt: number }>> {
    assertSafeBlobPath(prefix.replace(/\/$/, ''));
    const root = this.#key(prefix.replace(/\/$/, ''));
    const bundles = new Map<string, number>();
    for (const object of await this.client.list(this.location.bucket, `${root}/`)) {
      const [id, name] = object.key.slice(root.length + 1).split('/');
      if (!id || !name) continue;
      const bundle = `${prefix}${id}/${name}`;
      bundles.set(bundle, Math.max(bundles.get(bundle) ?? 0, object.lastModified ?? Date.now()));
    }
    return [...bundles].map(([bundle, modifiedAt]) => ({ bundle, modifiedAt }));
  }

  async deleteBundle(bundle: string): Promise<void> {
    assertSafeBlobPath(bundle);
    for (const key of await this.client.listKeys(this.location.bucket, `${this.#key(bundle)}/`)) {
      await this.client.deleteObject(this.location.bucket, key);
    }
  }
}
