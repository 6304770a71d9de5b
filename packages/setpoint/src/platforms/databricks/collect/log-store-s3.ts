import { parseS3Url, type S3Client } from '@setpoint/foundation/s3';
import type { LogEntry, LogStore } from './log-store.js';

/**
 * Cluster logs delivered to `s3://bucket/prefix`, read with the workspace's own AWS credentials (the
 * Databricks API cannot read them). Paths stay `s3://…` URLs. A listing takes every key below the
 * folder and folds deeper keys into their first-level folder (dated by their newest object), rather
 * than asking S3 for common prefixes: a cluster's log folder is small, and S3-compatible servers
 * differ in how they group prefixes.
 */
export function s3LogStore(client: Pick<S3Client, 'list' | 'getObject'>): LogStore {
  return {
    async list(path) {
      const { bucket, key } = parseS3Url(path);
      const prefix = key === '' ? '' : `${key.replace(/\/+$/, '')}/`;
      const entries = new Map<string, LogEntry>();
      for (const object of await client.list(bucket, prefix)) {
        const [name, ...deeper] = object.key.slice(prefix.length).split('/');
        if (!name) continue;
        const isDir = deeper.length > 0;
        const existing = entries.get(name);
        const modifiedAt = Math.max(existing?.modifiedAt ?? 0, object.lastModified ?? 0) || undefined;
        entries.set(name, {
          path: `s3://${bucket}/${prefix}${name}`,
          name,
          isDir,
          size: isDir ? 0 : object.size,
          modifiedAt,
        });
      }
      return [...entries.values()];
    },
    async *read(path) {
      const { bucket, key } = parseS3Url(path);
      for await (const chunk of await client.getObject(bucket, key)) yield chunk as Buffer;
    },
  };
}

/** The access check's "read S3" probe: one ListObjectsV2 on the destination's prefix. */
export async function probeS3LogDestination(
  client: Pick<S3Client, 'probeList'>,
  destination: string,
): Promise<string> {
  const { bucket, key } = parseS3Url(destination);
  const prefix = key === '' ? '' : `${key.replace(/\/+$/, '')}/`;
  const count = await client.probeList(bucket, prefix);
  return count === 0
    ? `can list ${destination} (empty so far; Databricks writes to it on the first log delivery)`
    : `can list ${destination} (${count}${count >= 10 ? '+' : ''} objects)`;
}
