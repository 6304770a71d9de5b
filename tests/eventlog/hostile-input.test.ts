/**
 * Hostile event logs: a huge EnvironmentUpdate, secrets in the Spark conf, decompression bombs and
 * newline floods. Each is generated while it is read (no large file on disk). The old reader copied
 * the whole conf into the profile and JSON.parsed a 120 MB line; these tests pin the bounds.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { findZstdBinary } from 'setpoint/eventlog/codec/zstd-stream';
import { builtInZstdDecompress } from 'setpoint/eventlog/codec/zstd-zlib';
import {
  analyzeEventLog,
  buildRunProfile,
  defaultEventLogLimits,
  EventLogLimitError,
  type EventLogUnit,
  type ReadOptions,
  readEventLog,
} from 'setpoint/eventlog/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';
import {
  applicationEnd,
  applicationStart,
  environmentUpdate,
  generatedUnit,
  logStart,
} from './support/generated-log.js';

const realConf = { 'spark.master': 'yarn', 'spark.executor.memory': '8g', 'spark.app.id': 'app-1' };

async function profileOf(unit: EventLogUnit, options: ReadOptions = {}) {
  const { run, source } = await readEventLog(unit, options);
  return buildRunProfile(run, source);
}

describe('a hostile EnvironmentUpdate', () => {
  it('one 111 MB line of 9.3M properties is skipped unread and recorded; the profile stays small', async () => {
    const unit = generatedUnit('env-9m', function* () {
      yield logStart;
      yield applicationStart;
      yield* environmentUpdate(realConf, 9_300_000);
      yield applicationEnd;
    });
    const profile = await profileOf(unit);
    expect(profile.parse.bytesRead).toBeGreaterThan(100e6);
    expect(profile.application.name).toBe('hostile');
    expect(profile.application.endTime).toBe(1700000060000);
    expect(profile.sparkConf).toEqual({});
    expect(profile.parse.issues).toEqual([
      expect.objectContaining({
        code: 'line-too-long',
        count: 1,
        lines: [3],
        message: expect.stringContaining('SparkListenerEnvironmentUpdate'),
      }),
    ]);
    expect(JSON.stringify(profile).length).toBeLessThan(20_000);
  }, 120_000);

  it('800k properties under the line limit are scanned, not parsed: only allow-listed keys are kept', async () => {
    const unit = generatedUnit('env-800k', function* () {
      yield logStart;
      yield applicationStart;
      yield* environmentUpdate(realConf, 800_000);
      yield applicationEnd;
    });
    const profile = await profileOf(unit);
    expect(profile.sparkConf).toEqual({ 'spark.master': 'yarn', 'spark.executor.memory': '8g' });
    expect(profile.parse.sparkProperties).toEqual({ seen: 800_003, kept: 2, redacted: 0 });
    expect(profile.platform.kind).toBe('yarn');
    expect(profile.parse.issues).toEqual([]);
    expect(JSON.stringify(profile).length).toBeLessThan(20_000);
  }, 120_000);

  it('a flood of allow-listed keys is capped at maxConfKeys and recorded', async () => {
    const unit = generatedUnit('env-tags', function* () {
      yield logStart;
      yield applicationStart;
      yield* environmentUpdate(realConf, 100_000, 'spark.databricks.clusterUsageTags.t');
    });
    const profile = await profileOf(unit);
    expect(Object.keys(profile.sparkConf)).toHaveLength(defaultEventLogLimits.maxConfKeys);
    expect(profile.sparkConf['spark.master']).toBe('yarn');
    expect(profile.parse.issues).toContainEqual(
      expect.objectContaining({
        code: 'spark-conf-capped',
        count: 100_002 - defaultEventLogLimits.maxConfKeys,
      }),
    );
  });

  it('secret-looking keys and values never reach the profile', async () => {
    const secrets = {
      'spark.databricks.clusterUsageTags.clusterOwnerToken': 'tok-abc123-should-not-leak',
      'spark.emr.s3.secretAccessKey': 'wJalrXUtnFEMI-should-not-leak',
      'spark.dataproc.metastore.password': 'hunter2-should-not-leak',
      'spark.emr.default.logUri': 's3a://user:pa55-should-not-leak@bucket/logs',
      'spark.databricks.clusterUsageTags.clusterNote': 'dapi0123456789abcdef0123456789abcdef',
      'spark.hadoop.fs.s3a.secret.key': 'not-allow-listed-should-not-leak',
      'spark.executor.extraJavaOptions': '-Dpassword=also-not-allow-listed-should-not-leak',
    };
    const unit = generatedUnit('env-secrets', function* () {
      yield logStart;
      yield applicationStart;
      yield* environmentUpdate({ ...realConf, ...secrets }, 0);
    });
    const profile = await profileOf(unit);
    const text = JSON.stringify(profile);
    expect(text).not.toContain('should-not-leak');
    expect(text).not.toContain('dapi0123');
    expect(profile.sparkConf['spark.emr.s3.secretAccessKey']).toBe('*********(redacted)');
    expect(profile.sparkConf['spark.emr.default.logUri']).toBe('*********(redacted)');
    expect(profile.sparkConf).not.toHaveProperty('spark.hadoop.fs.s3a.secret.key');
    expect(profile.parse.sparkProperties.redacted).toBe(5);
    expect(profile.platform.kind).toBe('databricks');
  });

  it('a long SQL description is cut to maxDescriptionChars and recorded once', async () => {
    const description = 'SELECT 1 -- '.repeat(100_000);
    const unit = generatedUnit('long-sql', function* () {
      yield logStart;
      yield applicationStart;
      yield `${JSON.stringify({
        Event: 'org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart',
        executionId: 0,
        description,
        time: 1700000001000,
      })}\n`;
    });
    const profile = await profileOf(unit);
    expect(profile.sqlExecutions[0]!.description.length).toBeLessThanOrEqual(
      defaultEventLogLimits.maxDescriptionChars + 20,
    );
    expect(profile.parse.issues).toContainEqual(
      expect.objectContaining({ code: 'text-truncated', count: 1 }),
    );
  });
});

describe('decompression bombs and newline floods', () => {
  const flood = Buffer.alloc(256 * 2 ** 20, 0x0a);
  const gzipFlood = gzipSync(Buffer.concat([Buffer.from(logStart), flood]), { level: 9 });

  it('a gzip newline flood (1000×) stops at the compression-ratio limit', async () => {
    const unit = generatedUnit('flood.gz', () => [gzipFlood]);
    const error = await errorOf(profileOf(unit));
    expect(error).toBeInstanceOf(EventLogLimitError);
    expect(error.code).toBe('EVENTLOG_COMPRESSION_RATIO');
    expect(error.message).toContain('maxCompressionRatio');
  });

  it('maxDecompressedBytes stops any codec early, naming the limit', async () => {
    const unit = generatedUnit('flood.gz', () => [gzipFlood]);
    const error = await errorOf(profileOf(unit, { limits: { maxDecompressedBytes: 8 * 2 ** 20 } }));
    expect(error.code).toBe('EVENTLOG_TOO_LARGE');
    expect(error.limit).toBe('maxDecompressedBytes');
    expect(error.message).toContain('8 MiB');
  });

  it('blank lines inside the limits are counted in runs, not one call each', async () => {
    const unit = generatedUnit('blank', () => [logStart, flood.subarray(0, 32 * 2 ** 20), applicationEnd]);
    const profile = await profileOf(unit);
    expect(profile.parse.lines).toBe(32 * 2 ** 20 + 2);
    expect(profile.parse.malformedLines).toBe(0);
  });

  const zstd = findZstdBinary();
  it.skipIf(!zstd)('a zstd newline flood stops at the ratio limit with either decoder', async () => {
    const compressed = spawnSync(zstd!, ['-q', '-3', '-c'], {
      input: Buffer.concat([Buffer.from(logStart), flood]),
    });
    expect(compressed.status).toBe(0);
    expect(compressed.stdout.length).toBeLessThan(200_000);
    for (const zstdDecoder of [
      'binary',
      'fzstd',
      ...(builtInZstdDecompress ? (['zlib'] as const) : []),
    ] as const) {
      const unit = generatedUnit('flood.zst', () => [compressed.stdout]);
      const error = await errorOf(profileOf(unit, { zstdDecoder }));
      expect(error.code, zstdDecoder).toBe('EVENTLOG_COMPRESSION_RATIO');
    }
  });
});

describe('zip archives', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-hostile-zip-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('an entry that floods newlines is streamed and stops at the ratio limit', async () => {
    const path = join(scratch, 'flood.zip');
    const content = Buffer.concat([Buffer.from(logStart), Buffer.alloc(300 * 2 ** 20, 0x0a)]);
    writeFileSync(path, zipSync({ eventlog: content }, { level: 9 }));
    const error = await errorOf(analyzeEventLog(path));
    expect(error.code).toBe('EVENTLOG_COMPRESSION_RATIO');
  });

  it('an archive with more entries than maxZipEntries is refused before any is read', async () => {
    const path = join(scratch, 'many.zip');
    const entries = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`part-${index}`, Buffer.from(logStart)]),
    );
    writeFileSync(path, zipSync(entries));
    const error = await errorOf(analyzeEventLog(path, { limits: { maxZipEntries: 20 } }));
    expect(error.code).toBe('EVENTLOG_ZIP_TOO_MANY_ENTRIES');
    expect(error.limit).toBe('maxZipEntries');
  });

  it('an entry whose data does not match its declared size is a typed error', async () => {
    const path = join(scratch, 'lying.zip');
    const log = Buffer.from(logStart + applicationStart + applicationEnd);
    const archive = Buffer.from(zipSync({ eventlog: log }, { level: 0 }));
    // Shrink the declared uncompressed size in the central directory: the stream yields more.
    const central = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    archive.writeUInt32LE(10, central + 24);
    writeFileSync(path, archive);
    const error = await errorOf(analyzeEventLog(path));
    expect(error.code).toBe('EVENTLOG_BAD_ZIP');
  });
});
