import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import { externalRunIdSchema, runStatusSchema } from '@setpoint/api-contract';
import { isAppError, TooLargeError, ValidationError } from '@setpoint/foundation/errors';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { bundleFileName, extractZip, isZipFile } from '../../service/runs/eventlog-bundle.js';
import { byteLimit } from '../../service/runs/eventlog-fetcher.js';
import type { UploadedFile } from '../../service/runs/run-service.js';
import { assertJsonShape } from '../plugins/json-limits.js';

export interface ParsedUpload {
  directory: string;
  files: UploadedFile[];
  /** The `cluster_report` part as JSON, not yet validated (the project's platform does that). */
  clusterReport: unknown;
  externalRunId: string;
  status: string | null;
}

/**
 * A cluster report, as a part, a field or in a JSON submission: a Databricks report of a long autoscaling
 * run with its events and timelines is a few MB. Larger is refused with 413 before it is parsed.
 */
export const maxClusterReportBytes = 8 * 1024 * 1024;

/** A form field (a cluster report) past the limit: refused, never read cut short. */
export function fieldTooLarge(field: string): TooLargeError {
  return new TooLargeError(
    'UPLOAD_FIELD_TOO_LARGE',
    `${field} is larger than ${maxClusterReportBytes / 2 ** 20} MiB, the most a run's cluster report (or any field) may be`,
  );
}

/**
 * What one upload request may store, all parts and zip entries together: `maxBytes` after
 * extraction (three small zips cannot each expand to the limit) and `maxFiles` files.
 */
export class UploadBudget {
  #stored = 0;
  #files = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxFiles: number,
  ) {}

  /** Bytes the next part or zip may still write. */
  get remaining(): number {
    return this.maxBytes - this.#stored;
  }

  get filesLeft(): number {
    return this.maxFiles - this.#files;
  }

  /** Counts stored files; refuses the request past `maxFiles`. */
  store(files: ReadonlyArray<{ bytes: number }>): void {
    this.#files += files.length;
    for (const file of files) this.#stored += file.bytes;
    if (this.#files > this.maxFiles) {
      throw new ValidationError(
        'UPLOAD_TOO_MANY_FILES',
        `an upload may hold at most ${this.maxFiles} event-log files`,
      );
    }
  }

  /**
   * Streams one file part to `target` within the remaining bytes and, when it is a zip, extracts it
   * (the zip itself is removed) within what remains. Returns the files stored.
   */
  async receive(
    source: NodeJS.ReadableStream,
    target: string,
    name: string,
    taken: Set<string>,
    through: Transform[] = [],
  ): Promise<UploadedFile[]> {
    if (this.filesLeft <= 0) {
      throw new ValidationError(
        'UPLOAD_TOO_MANY_FILES',
        `an upload may hold at most ${this.maxFiles} event-log files`,
      );
    }
    let bytes = 0;
    await pipeline(
      source,
      byteLimit(this.remaining, (count) => {
        bytes = count;
      }),
      ...through,
      createWriteStream(target),
    );
    const files = (await isZipFile(target))
      ? await extractZip(target, path.dirname(target), this.remaining, taken, { maxEntries: this.filesLeft })
      : [{ name, path: target, bytes }];
    this.store(files);
    return files;
  }
}

/** A text field checked against its schema: refused with its rule, never cut to fit. */
function checkedField(schema: z.ZodType<string>, value: string, field: string): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    'UPLOAD_FIELD_INVALID',
    `${field} ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
  );
}

/** A JSON document sent as text (a form field or part); its shape is checked by whoever reads it. */
export function parseJsonText(text: string, field: string): unknown {
  assertJsonShape(text, field);
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('CLUSTER_REPORT_INVALID', `${field} is not valid JSON`);
  }
}

/**
 * Streams the multipart parts of a run upload to disk: `eventlog` file parts (or one zip of them),
 * an optional `cluster_report` JSON part, optional `external_run_id` and `status` fields. The total
 * is capped at `maxBytes` after zip extraction, and at `maxFiles` files; without an external run id
 * the content hash is the idempotency key.
 */
export async function receiveUpload(
  request: FastifyRequest,
  scratchDir: string,
  limits: { maxBytes: number; maxFiles: number },
): Promise<ParsedUpload> {
  const budget = new UploadBudget(limits.maxBytes, limits.maxFiles);
  await mkdir(scratchDir, { recursive: true });
  const directory = await mkdtemp(path.join(scratchDir, 'upload-'));
  const files: UploadedFile[] = [];
  const taken = new Set<string>();
  const hash = createHash('sha256');
  let clusterReport: unknown = null;
  let externalRunId: string | undefined;
  let status: string | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        const value = String(part.value);
        if (part.fieldname === 'cluster_report') {
          if (part.valueTruncated || value.length > maxClusterReportBytes)
            throw fieldTooLarge('cluster_report');
          clusterReport = parseJsonText(value, 'cluster_report');
        } else if (part.fieldname === 'external_run_id')
          externalRunId = checkedField(externalRunIdSchema, value, part.fieldname);
        else if (part.fieldname === 'status') status = checkedField(runStatusSchema, value, part.fieldname);
        else
          throw new ValidationError('UPLOAD_UNKNOWN_PART', `unexpected multipart field "${part.fieldname}"`);
        continue;
      }
      if (part.fieldname === 'cluster_report') {
        const chunks: Buffer[] = [];
        let bytes = 0;
        await pipeline(part.file, async (source: AsyncIterable<Buffer>) => {
          for await (const chunk of source) {
            bytes += chunk.length;
            if (bytes > maxClusterReportBytes) throw fieldTooLarge('cluster_report');
            chunks.push(chunk);
          }
        });
        clusterReport = parseJsonText(Buffer.concat(chunks).toString('utf8'), 'cluster_report');
        continue;
      }
      if (part.fieldname !== 'eventlog') {
        part.file.resume();
        throw new ValidationError(
          'UPLOAD_UNKNOWN_PART',
          `unexpected multipart file "${part.fieldname}" (use "eventlog" or "cluster_report")`,
        );
      }
      const name = bundleFileName(part.filename, taken, 'eventlog');
      taken.add(name);
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      files.push(...(await budget.receive(part.file, path.join(directory, name), name, taken, [hashing])));
    }
    if (files.length === 0)
      throw new ValidationError('UPLOAD_NO_EVENTLOG', 'the upload has no "eventlog" file part');
    return {
      directory,
      files,
      clusterReport,
      externalRunId: externalRunId || `sha256:${hash.digest('hex')}`,
      status,
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw asUploadError(error);
  }
}

/**
 * A multipart parser's complaint (a malformed boundary or part header, a truncated body) is the
 * client's mistake: 400, not 500. Setpoint's own errors, HTTP errors and system errors pass through.
 */
export function asUploadError(error: unknown): unknown {
  if (isAppError(error) || !(error instanceof Error)) return error;
  if ('statusCode' in error || 'errno' in error) return error;
  return new ValidationError('UPLOAD_MALFORMED', `the multipart body is malformed: ${error.message}`);
}
