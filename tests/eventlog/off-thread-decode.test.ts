/**
 * Large lz4, snappy, LZF and zstd logs decode in a worker thread; this file covers the JavaScript
 * decoders (fzstd and Setpoint's block decoders; native-off-thread-decode.test.ts covers the native
 * ones and the zstd binary). Forced onto that path with
 * offThreadMinBytes: 0 and the JavaScript block decoders, every codec must give exactly the profile
 * and the errors of the inline decoders, and stopping early must end the thread.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeEventLog, buildRunProfile, readEventLog } from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';
import { generatedUnit } from './support/generated-log.js';

const generated = join(import.meta.dirname, '../fixtures/eventlog/generated');
const spark4 = join(import.meta.dirname, '../fixtures/eventlog/spark4/logs');
const offThread = { offThreadMinBytes: 0, zstdDecoder: 'fzstd', blockDecoder: 'js' } as const;

describe('decoding in a worker thread', () => {
  for (const name of [
    'local-1430917381534.lz4',
    'local-1430917381534.snappy',
    'local-1430917381534.lzf',
    'local-1430917381534.zstd',
  ]) {
    it(`${name} gives the inline profile`, async () => {
      const path = join(generated, name);
      const inline = await analyzeEventLog(path, {
        offThreadMinBytes: Number.POSITIVE_INFINITY,
        zstdDecoder: 'fzstd',
        blockDecoder: 'js',
      });
      expect(await analyzeEventLog(path, offThread)).toEqual(inline);
    });
  }

  it('reads real Spark 4 lz4 and snappy logs the same way', async () => {
    const { readdirSync } = await import('node:fs');
    const logs = readdirSync(spark4).filter((name) => /\.(lz4|snappy|lzf)$/.test(name));
    expect(logs.length).toBeGreaterThan(0);
    for (const name of logs) {
      const path = join(spark4, name);
      expect(await analyzeEventLog(path, offThread), name).toEqual(await analyzeEventLog(path));
    }
  });

  it('keeps the inline errors: truncated and corrupt streams', async () => {
    const lz4 = readFileSync(join(generated, 'local-1430917381534.lz4'));
    const truncated = await errorOf(
      readEventLog(
        generatedUnit('cut.lz4', () => [lz4.subarray(0, lz4.length - 100)]),
        offThread,
      ),
    );
    expect(truncated.code).toBe('EVENTLOG_TRUNCATED');
    const inProgress = await readEventLog(
      { ...generatedUnit('cut.lz4', () => [lz4.subarray(0, lz4.length - 100)]), inProgress: true },
      offThread,
    );
    expect(inProgress.run.parse.warnings.join(' ')).toContain('ends mid-block');
    const corrupt = Buffer.from(lz4);
    corrupt.write('XXXXXXXX', 21 + lz4.readInt32LE(9), 'latin1'); // the second block's header
    expect(
      (
        await errorOf(
          readEventLog(
            generatedUnit('bad.lz4', () => [corrupt]),
            offThread,
          ),
        )
      ).code,
    ).toBe('EVENTLOG_CORRUPT');
  });

  it('stops the thread when the reader stops early', async () => {
    const snappy = readFileSync(join(generated, 'local-1430917381534.snappy'));
    const error = await errorOf(
      readEventLog(
        generatedUnit('big.snappy', () => Array.from({ length: 200 }, () => snappy)),
        {
          ...offThread,
          limits: { maxDecompressedBytes: 2 * 2 ** 20 },
        },
      ),
    );
    expect(error.code).toBe('EVENTLOG_TOO_LARGE');
    const { run, source } = await readEventLog(
      generatedUnit('one.snappy', () => [snappy]),
      offThread,
    );
    expect(buildRunProfile(run, source).totals.tasks).toBeGreaterThan(0);
  });
});
