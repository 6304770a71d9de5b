import { chmod, copyFile, mkdir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { assertSafeBlobPath, type BlobStore } from './blob-store.js';

/**
 * Blobs (uploaded event logs) on the local disk, readable by Setpoint's user only: directories 0700, files
 * 0600, like the database (an event log holds queries, paths and the configuration of a company's jobs).
 */
export class LocalBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  async putFile(bundle: string, name: string, filePath: string): Promise<void> {
    assertSafeBlobPath(bundle);
    assertSafeBlobPath(name);
    const directory = path.join(this.root, bundle);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const target = path.join(directory, name);
    try {
      await rename(filePath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(filePath, target);
      await unlink(filePath);
    }
    await chmod(target, 0o600);
  }

  async withLocalCopy<T>(bundle: string, use: (directory: string) => Promise<T>): Promise<T> {
    assertSafeBlobPath(bundle);
    return use(path.join(this.root, bundle));
  }

  async deleteBundle(bundle: string): Promise<void> {
    assertSafeBlobPath(bundle);
    const directory = path.join(this.root, bundle);
    await rm(directory, { recursive: true, force: true });
    // `runs/<id>/` is left empty: remove it too (it fails harmlessly when not empty).
    await rmdir(path.dirname(directory)).catch(() => undefined);
  }

  async listBundles(prefix: string): Promise<Array<{ bundle: string; modifiedAt: number }>> {
    assertSafeBlobPath(prefix.replace(/\/$/, ''));
    const base = path.join(this.root, prefix);
    const found: Array<{ bundle: string; modifiedAt: number }> = [];
    for (const id of await readdir(base).catch(() => [] as string[])) {
      for (const name of await readdir(path.join(base, id)).catch(() => [] as string[])) {
        const info = await stat(path.join(base, id, name)).catch(() => undefined);
        if (info) found.push({ bundle: `${prefix}${id}/${name}`, modifiedAt: info.mtimeMs });
      }
    }
    return found;
  }
}
