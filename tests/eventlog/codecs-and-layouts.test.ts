import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findZstdBinary } from 'setpoint/eventlog/codec/zstd-stream';
import { builtInZstdDecompress } from 'setpoint/eventlog/codec/zstd-zlib';
import {
  analyzeEventLog,
  detectCodec,
  findEventLogs,
  type RunProfile,
  resolveEventLog,
  runProfileSchema,
} from 'setpoint/eventlog/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';

const fixtures = join(import.meta.dirname, '../fixtures/eventlog');
const generated = join(fixtures, 'generated');
const appId = 'local-1430917381534';
const plainPath = join(fixtures, 'spark-test-data/spark-events', appId);
const databricksParent = join(generated, 'databricks/0213-181500-abcd1234_10_139_64_5');
const databricksContext = '8880912756278443690';

/** The figures every layout and codec of the same log must reproduce exactly. */
function essentials(profile: RunProfile) {
  return {
    application: profile.application,
    totals: profile.totals,
    stages: profile.stages,
    jobs: profile.jobs,
    executors: profile.executors,
    malformedLines: profile.parse.malformedLines,
    bytesRead: profile.parse.bytesRead,
  };
}

let plain: RunProfile;
beforeAll(async () => {
  plain = await analyzeEventLog(plainPath);
});

describe('codec detection', () => {
  const cases: Array<[string, number[]]> = [
    ['lz4', [...Buffer.from('LZ4Block')]],
    ['snappy', [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]],
    ['zstd', [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]],
    ['lzf', [0x5a, 0x56, 0x01, 0, 0, 0, 0, 0]],
    ['gzip', [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0]],
    ['zip', [0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]],
    ['lz4-frame', [0x04, 0x22, 0x4d, 0x18, 0, 0, 0, 0]],
    ['plain', [...Buffer.from('{"Event"')]],
    ['plain', [0xef, 0xbb, 0xbf, ...Buffer.from('{"Ev')]],
    ['unknown', [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]],
    ['unknown', [...Buffer.from('23/11/07')]],
  ];
  for (const [codec, bytes] of cases) {
    it(`${codec} from ${Buffer.from(bytes).toString('hex')}`, () => {
      expect(detectCodec(Uint8Array.from(bytes))).toBe(codec);
    });
  }
});

describe('every codec decodes to the same profile', () => {
  for (const file of [`${appId}.gz`, `${appId}.zstd`, `${appId}.lz4`, `${appId}.snappy`, `${appId}.lzf`]) {
    it(file, async () => {
      const profile = await analyzeEventLog(join(generated, file));
      expect(essentials(profile)).toEqual(essentials(plain));
      expect(profile.parse.warnings).toEqual([]);
      expect(profile.source.parts[0]?.codec).toBe(
        file.split('.').pop() === 'gz' ? 'gzip' : file.split('.').pop(),
      );
    });
  }

  it('pure-JS zstd agrees with the zstd binary on a multi-frame file', async () => {
    const profile = await analyzeEventLog(join(generated, `${appId}.zstd`), { zstdDecoder: 'fzstd' });
    expect(essentials(profile)).toEqual(essentials(plain));
  });

  it.skipIf(builtInZstdDecompress === null)(
    "Node's built-in zstd decoder reads a multi-frame file",
    async () => {
      const profile = await analyzeEventLog(join(generated, `${appId}.zstd`), { zstdDecoder: 'zlib' });
      expect(essentials(profile)).toEqual(essentials(plain));
    },
  );

  it.skipIf(findZstdBinary() === null)('the zstd binary reads a multi-frame file', async () => {
    const profile = await analyzeEventLog(join(generated, `${appId}.zstd`), { zstdDecoder: 'binary' });
    expect(profile.totals.tasks).toBe(plain.totals.tasks);
  });

  it('the plain profile matches the RunProfile schema and knows the app', () => {
    expect(runProfileSchema.parse(plain)).toEqual(plain);
    expect(plain.application.id).toBe(appId);
    expect(plain.totals.tasks).toBe(110);
  });
});

describe('in-progress and truncated streams', () => {
  for (const [decoder, offThreadMinBytes] of [
    ['fzstd', undefined],
    ...(builtInZstdDecompress ? ([['zlib', undefined]] as const) : []),
    ['auto', undefined],
    ['auto', 0], // in the decode thread: the zstd binary there when on PATH
  ] as const) {
    it(`an .inprogress zstd log with an open last frame is read with a warning (${decoder}${offThreadMinBytes === 0 ? ', in a thread' : ''})`, async () => {
      const profile = await analyzeEventLog(join(generated, `${appId}.zstd.inprogress`), {
        zstdDecoder: decoder,
        ...(offThreadMinBytes === undefined ? {} : { offThreadMinBytes }),
      });
      expect(profile.source.inProgress).toBe(true);
      expect(profile.totals.tasks).toBeGreaterThan(0);
      expect(profile.totals.tasks).toBeLessThan(plain.totals.tasks);
      expect(profile.application.endTime).toBeNull();
      expect(profile.application.durationMs).toBeNull();
      expect(profile.application.observedSpanMs).toBeGreaterThan(0);
      expect(profile.parse.warnings.some((warning) => warning.includes('ends mid-block'))).toBe(true);
    });
  }

  it('a truncated gzip log that is not in progress fails with a clear error', async () => {
    const error = await errorOf(analyzeEventLog(join(generated, `${appId}.truncated.gz`)));
    expect(error.code).toBe('EVENTLOG_TRUNCATED');
    expect(error.message).toContain('--allow-truncated');
  });

  it('allowTruncated reads what a truncated gzip log holds', async () => {
    const profile = await analyzeEventLog(join(generated, `${appId}.truncated.gz`), { allowTruncated: true });
    expect(profile.totals.tasks).toBeGreaterThan(0);
    expect(profile.totals.tasks).toBeLessThan(plain.totals.tasks);
    expect(profile.parse.warnings.some((warning) => warning.includes('gzip stream ends mid-block'))).toBe(
      true,
    );
  });
});

describe('in-progress layouts', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-eventlog-inprogress-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('a plain .inprogress file cut mid-line is read with its complete lines', async () => {
    const text = readFileSync(plainPath, 'utf8');
    const path = join(scratch, `${appId}.inprogress`);
    writeFileSync(path, text.slice(0, Math.floor(text.length * 0.6)));
    const profile = await analyzeEventLog(path);
    expect(profile.source.inProgress).toBe(true);
    expect(profile.application.id).toBe(appId);
    expect(profile.parse.malformedLines).toBe(1);
    expect(profile.parse.warnings.join('\n')).toMatch(/last line is incomplete/);
  });

  it('a rolling log whose appstatus is in progress tolerates an open last part', async () => {
    const directory = join(scratch, `eventlog_v2_${appId}`);
    cpSync(join(generated, `eventlog_v2_${appId}`), directory, { recursive: true });
    renameSync(join(directory, `appstatus_${appId}`), join(directory, `appstatus_${appId}.inprogress`));
    const lastPart = join(directory, `events_11_${appId}.zstd`);
    const bytes = readFileSync(lastPart);
    writeFileSync(lastPart, bytes.subarray(0, bytes.length - 100));
    const profile = await analyzeEventLog(directory);
    expect(profile.source.inProgress).toBe(true);
    expect(profile.totals.tasks).toBeGreaterThan(0);
    expect(profile.totals.tasks).toBeLessThanOrEqual(plain.totals.tasks);
    expect(profile.parse.warnings.some((warning) => warning.includes('ends mid-block'))).toBe(true);
  });
});

describe('layouts', () => {
  it('a rolling eventlog_v2 directory reads its parts in numeric order', async () => {
    const profile = await analyzeEventLog(join(generated, `eventlog_v2_${appId}`));
    expect(essentials(profile)).toEqual(essentials(plain));
    expect(profile.source.layout).toBe('rolling');
    expect(profile.source.inProgress).toBe(false);
    const numbers = profile.source.parts.map((part) => Number(/events_(\d+)_/.exec(part.name)?.[1]));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('a Databricks context directory is ordered by rollover number and equals the concatenated log', async () => {
    const [fromParts, concatenated] = await Promise.all([
      analyzeEventLog(join(databricksParent, databricksContext)),
      analyzeEventLog(join(fixtures, 'real/db_subExecution_id.zstd')),
    ]);
    expect(fromParts.source.layout).toBe('databricks');
    expect(fromParts.source.parts.map((part) => part.name.split('/').pop())).toEqual([
      'eventlog-2024-02-13--19-00.gz',
      'eventlog',
    ]);
    const { bytesRead: _a, ...partsEssentials } = essentials(fromParts);
    const { bytesRead: _b, ...concatenatedEssentials } = essentials(concatenated);
    expect(partsEssentials).toEqual(concatenatedEssentials);
    expect(fromParts.application.sparkContextId).toBe(databricksContext);
  });

  it('a parent with several Spark contexts lists them and reads the one asked for', async () => {
    const units = await findEventLogs(databricksParent);
    expect(units.map((unit) => unit.name).sort()).toEqual(['1234567890123456789', databricksContext]);
    const error = await errorOf(resolveEventLog(databricksParent));
    expect(error.code).toBe('EVENTLOG_SEVERAL');
    expect(error.message).toContain('--context');
    expect(error.message).toContain(databricksContext);
    const chosen = await analyzeEventLog(databricksParent, { context: '1234567890123456789' });
    expect(chosen.application.id).toBe('local-1532512550423');
    const missing = await errorOf(analyzeEventLog(databricksParent, { context: 'nope' }));
    expect(missing.code).toBe('EVENTLOG_CONTEXT_NOT_FOUND');
  });

  it('a zip of a Databricks context reads like the directory', async () => {
    const [zipped, directory] = await Promise.all([
      analyzeEventLog(join(generated, 'databricks-context.zip')),
      analyzeEventLog(join(databricksParent, databricksContext)),
    ]);
    expect(essentials(zipped)).toEqual(essentials(directory));
    expect(zipped.source.path).toContain('databricks-context.zip!/');
  });
});

describe('bad input', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-eventlog-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const cases: Array<[string, Buffer | string, string]> = [
    ['empty', '', 'EVENTLOG_EMPTY'],
    [
      'binary',
      Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x99, 0x01, 0x02, 0x03]),
      'EVENTLOG_NOT_RECOGNISED',
    ],
    ['json-but-not-events', '{"hello":"world"}\n{"Event":1}\n', 'EVENTLOG_NO_EVENTS'],
    [
      'lz4-frame',
      Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0, 0]),
      'EVENTLOG_UNSUPPORTED_CODEC',
    ],
    [
      'corrupt-lz4',
      Buffer.concat([Buffer.from('LZ4Block'), Buffer.from([0x77, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x41])]),
      'EVENTLOG_CORRUPT',
    ],
  ];
  for (const [name, content, code] of cases) {
    it(name, async () => {
      const path = join(scratch, name);
      writeFileSync(path, content);
      expect((await errorOf(analyzeEventLog(path))).code).toBe(code);
    });
  }

  it('a missing path', async () => {
    expect((await errorOf(analyzeEventLog(join(scratch, 'missing')))).code).toBe('EVENTLOG_NOT_FOUND');
  });

  it('a log whose only event is longer than the line limit', async () => {
    const path = join(scratch, 'long-line');
    writeFileSync(path, `{"Event":"SparkListenerLogStart","x":"${'a'.repeat(4096)}"}\n`);
    const error = await errorOf(analyzeEventLog(path, { limits: { maxLineBytes: 1024 } }));
    expect(error.code).toBe('EVENTLOG_NO_EVENTS');
  });

  it('a directory without logs', async () => {
    const directory = mkdtempSync(join(scratch, 'empty-dir-'));
    writeFileSync(join(directory, 'notes.txt'), 'nothing here');
    expect((await errorOf(analyzeEventLog(directory))).code).toBe('EVENTLOG_NONE');
  });
});

describe('line tolerance', () => {
  let scratch: string;
  const lines = readFileSync(plainPath, 'utf8').trimEnd().split('\n');
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-eventlog-lines-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('blank lines and CRLF are not malformed; bad lines and a cut last line are counted', async () => {
    const withoutEnd = lines.filter((line) => !line.includes('SparkListenerApplicationEnd'));
    const damaged = [
      ...withoutEnd.slice(0, 5),
      '',
      '   ',
      'this is not json',
      '{"Event":"SparkListenerTaskEnd", "broken": ',
      '{"Event":"com.example.VendorEvent","payload":{"a":1}}',
      ...withoutEnd.slice(5),
    ].join('\r\n');
    const path = join(scratch, 'damaged');
    writeFileSync(path, `${damaged}\r\n{"Event":"SparkListenerJobEnd","Job ID":1,"Compl`);
    const profile = await analyzeEventLog(path);
    expect(profile.parse.malformedLines).toBe(3);
    expect(profile.parse.unknownEvents).toBe(1);
    expect(profile.totals.tasks).toBe(plain.totals.tasks);
    expect(profile.application.endTime).toBeNull();
    expect(profile.application.durationMs).toBeNull();
    expect(profile.parse.warnings.join('\n')).toMatch(/last line is incomplete/);
    expect(profile.parse.warnings.join('\n')).toMatch(/2 lines are not valid event JSON/);
    expect(profile.parse.warnings.join('\n')).toMatch(/no SparkListenerApplicationEnd/);
  });
});
