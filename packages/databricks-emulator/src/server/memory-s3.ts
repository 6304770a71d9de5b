import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LogSink } from './log-delivery.js';

/** Where the in-process S3 face answers: `${url}${memoryS3Prefix}` is an S3 endpoint (path-style). */
export const memoryS3Prefix = '/s3';

interface StoredObject {
  data: Uint8Array;
  modifiedAtMs: number;
}

const xmlEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function locationOf(path: string): { bucket: string; key: string } {
  const match = /^s3[an]?:\/\/([^/]+)\/?(.*)$/.exec(path);
  if (!match) throw new Error(`not an S3 location: ${path}`);
  return { bucket: match[1] as string, key: match[2] as string };
}

/**
 * An S3-compatible store held in memory, for a process that has no S3 server at hand (the demo): the
 * emulator's log delivery writes into it, and `registerMemoryS3Routes` serves GetObject and
 * ListObjectsV2 (path-style, under `/s3`) to any S3 client, Setpoint's included. Signatures are not
 * checked. Objects older than a given time can be dropped, so a long-running demo stays bounded.
 */
export class MemoryS3Store implements LogSink {
  readonly #buckets = new Map<string, Map<string, StoredObject>>();

  write(path: string, data: Uint8Array, modifiedAtMs: number): void {
    const { bucket, key } = locationOf(path);
    const objects = this.#buckets.get(bucket) ?? new Map<string, StoredObject>();
    objects.set(key, { data, modifiedAtMs });
    this.#buckets.set(bucket, objects);
  }

  /** S3 has no folders. */
  mkdirs(): void {}

  removeTree(path: string): void {
    const { bucket, key } = locationOf(path);
    const prefix = `${key.replace(/\/+$/, '')}/`;
    for (const name of [...(this.#buckets.get(bucket)?.keys() ?? [])])
      if (name.startsWith(prefix)) this.#buckets.get(bucket)?.delete(name);
  }

  /** Writes land at once. */
  afterWrites(done: () => void): void {
    done();
  }

  /** Drops every object last written before `cutoffMs` (simulated time). */
  expireBefore(cutoffMs: number): void {
    for (const objects of this.#buckets.values())
      for (const [key, object] of objects) if (object.modifiedAtMs < cutoffMs) objects.delete(key);
  }

  get(bucket: string, key: string): StoredObject | undefined {
    return this.#buckets.get(bucket)?.get(key);
  }

  /** Keys under `prefix`, in S3's order (UTF-8 binary). */
  keys(bucket: string, prefix: string): string[] | undefined {
    const objects = this.#buckets.get(bucket);
    if (!objects) return undefined;
    return [...objects.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
}

function s3Error(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .code(status)
    .type('application/xml')
    .send(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`,
    );
}

type ListQuery = Record<string, string | undefined>;

function listObjects(store: MemoryS3Store, bucket: string, query: ListQuery, reply: FastifyReply) {
  const prefix = query.prefix ?? '';
  const all = store.keys(bucket, prefix);
  if (!all) return s3Error(reply, 404, 'NoSuchBucket', `The specified bucket does not exist: ${bucket}`);
  const maxKeys = Math.min(1000, Math.max(1, Number(query['max-keys'] ?? 1000) || 1000));
  const after = query['continuation-token'] ?? query['start-after'] ?? '';
  const remaining = all.filter((key) => key > after);
  const page = remaining.slice(0, maxKeys);
  const truncated = remaining.length > page.length;
  const contents = page
    .map((key) => {
      const object = store.get(bucket, key);
      return `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${new Date(object?.modifiedAtMs ?? 0).toISOString()}</LastModified><Size>${object?.data.byteLength ?? 0}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    })
    .join('');
  const next = truncated
    ? `<NextContinuationToken>${xmlEscape(page.at(-1) ?? '')}</NextContinuationToken>`
    : '';
  return reply
    .type('application/xml')
    .send(
      `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlEscape(bucket)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
    );
}

/** GetObject and ListObjectsV2 over the store, path-style below `/s3`. */
export function registerMemoryS3Routes(app: FastifyInstance, store: MemoryS3Store): void {
  app.get<{ Params: { bucket: string }; Querystring: ListQuery }>(
    `${memoryS3Prefix}/:bucket`,
    async (request, reply) => listObjects(store, request.params.bucket, request.query, reply),
  );
  app.get<{ Params: { bucket: string; '*': string }; Querystring: ListQuery }>(
    `${memoryS3Prefix}/:bucket/*`,
    async (request, reply) => {
      const { bucket } = request.params;
      const key = request.params['*'];
      // `/bucket/?list-type=2`: the SDK lists with a trailing slash
      if (key === '' || request.query['list-type'] !== undefined)
        return listObjects(store, bucket, request.query, reply);
      const object = store.get(bucket, key);
      if (!object) return s3Error(reply, 404, 'NoSuchKey', 'The specified key does not exist.');
      return reply
        .type('application/octet-stream')
        .header('content-length', object.data.byteLength)
        .header('last-modified', new Date(object.modifiedAtMs).toUTCString())
        .send(Buffer.from(object.data.buffer, object.data.byteOffset, object.data.byteLength));
    },
  );
}
