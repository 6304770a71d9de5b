import { copyFile, mkdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { assertSafeBlobPath, type BlobStore } from './blob-store.js';

export class LocalBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  async putFile(bundle: string, name: string, filePath: string): Promise<void> {
    assertSafeBlobPath(bundle);
    assertSafeBlobPath(name);
    const directory = path.join(this.root, bundle);
    await mkdir(directory, { recursive: true });
    const target = path.join(directory, name);
    try {
      await rename(filePath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(filePath, target);
      await unlink(filePath);
    }
  }

  async withLocalCopy<T>(bundle: string, use: (directory: string) => Promise<T>): Promise<T> {
    assertSafeBlobPath(bundle);
    return use(path.join(this.root, bundle));
  }

  async deleteBundle(bundle: string): Promise<void> {
    assertSafeBlobPath(bundle);
    await rm(path.join(this.root, bundle), { recursive: true, force: true });
  }
}
