/**
 * Where uploaded event logs live. A blob "bundle" is a key prefix holding one or more files (a
 * rolling or Databricks event log is several). Local directory by default, S3-compatible optional.
 */
export interface BlobStore {
  /** Moves (local) or uploads (remote) a finished file into the bundle; replaces an existing one. */
  putFile(bundle: string, name: string, filePath: string): Promise<void>;
  /** Runs `use` with a local directory holding every file of the bundle. */
  withLocalCopy<T>(bundle: string, use: (directory: string) => Promise<T>): Promise<T>;
  deleteBundle(bundle: string): Promise<void>;
  /** Bundles `<prefix><id>/<name>` under `prefix` (e.g. `runs/`) with when they were last written. */
  listBundles(prefix: string): Promise<Array<{ bundle: string; modifiedAt: number }>>;
}

/** Bundle keys are made by Setpoint from ids; this refuses anything that could leave the store. */
export function assertSafeBlobPath(part: string): void {
  if (
    !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(part) ||
    part.split('/').some((p) => p === '..' || p === '.')
  ) {
    throw new Error(`unsafe blob path "${part}"`);
  }
}
