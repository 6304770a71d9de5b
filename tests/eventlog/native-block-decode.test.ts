/**
 * lz4 and snappy logs decode with the native block decoders where their binary loads (the default),
 * and must give exactly the profile and the errors of the JavaScript decoders: on the generated
 * fixtures, on real Spark 4 logs, on truncated and damaged streams.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nativeBlockDecoders } from 'setpoint/eventlog/codec/native-block-decoders';
import { analyzeEventLog, readEventLog } from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';
import { generatedUnit } from './support/generated-log.js';

const generated = join(import.meta.dirname, '../fixtures/eventlog/generated');
const spark4 = join(import.meta.dirname, '../fixtures/eventlog/spark4/logs');
const native = { blockDecoder: 'native' } as const;
const js = { blockDecoder: 'js' } as const;

describe.runIf(nativeBlockDecoders().available)('native lz4 and snappy decoding', () => {
  const logs = [
    join(generated, 'local-1430917381534.lz4'),
    join(generated, 'local-1430917381534.snappy'),
    ...readdirSync(spark4)
      .filter((name) => /\.(lz4|snappy)$/.test(name))
      .map((name) => join(spark4, name)),
  ];

  it('gives the JavaScript decoders’ profile on generated and real Spark 4 logs', async () => {
    expect(logs.length).toBeGreaterThan(2);
    for (const path of logs) {
      const profile = await analyzeEventLog(path, native);
      expect(profile.totals.tasks, path).toBeGreaterThan(0);
      expect(profile, path).toEqual(await analyzeEventLog(path, js));
    }
  });

  it('keeps the JavaScript decoders’ errors: truncated and damaged streams', async () => {
    for (const codec of ['lz4', 'snappy'] as const) {
      const bytes = readFileSync(join(generated, `local-1430917381534.${codec}`));
      const cut = () => [bytes.subarray(0, bytes.length - 100)];
      for (const options of [native, js]) {
        const truncated = await errorOf(readEventLog(generatedUnit(`cut.${codec}`, cut), options));
        expect(truncated.code).toBe('EVENTLOG_TRUNCATED');
        const inProgress = await readEventLog(
          { ...generatedUnit(`cut.${codec}`, cut), inProgress: true },
          options,
        );
        expect(inProgress.run.parse.warnings.join(' ')).toContain('ends mid-block');
      }
      // Damage inside the first block's payload: a back-reference or length no longer fits.
      const payloadAt = codec === 'lz4' ? 21 : 20;
      const seen = new Set<string>();
      for (let offset = 0; offset < 64; offset += 7) {
        const damaged = Buffer.from(bytes);
        damaged.fill(0xff, payloadAt + offset, payloadAt + offset + 4);
        const outcomes = await Promise.all(
          [native, js].map(async (options) => {
            try {
              const { run } = await readEventLog(
                generatedUnit(`bad.${codec}`, () => [damaged]),
                options,
              );
              return `read ${run.parse.bytesRead}`;
            } catch (error) {
              return (await errorOf(Promise.reject(error))).code;
            }
          }),
        );
        expect(outcomes[0], `${codec} damaged at ${offset}`).toBe(outcomes[1]);
        seen.add(outcomes[0]!);
      }
      expect(seen).toContain('EVENTLOG_CORRUPT');
    }
  });
});
