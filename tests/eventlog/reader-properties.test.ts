/**
 * Property tests for the event-log reader and its codecs: whatever bytes arrive — a real log in
 * each codec with bytes flipped, cut or spliced, or random text — reading either returns a valid
 * RunProfile or throws an AppError with a code, stays within its decompression limit, and keeps
 * the profile proportional to what it read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAppError } from '@setpoint/foundation/errors';
import fc from 'fast-check';
import { builtInZstdDecompress } from 'setpoint/eventlog/codec/zstd-zlib';
import {
  type BlockDecoderChoice,
  buildRunProfile,
  readEventLog,
  runProfileSchema,
} from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';
import { generatedUnit } from './support/generated-log.js';

const generated = join(import.meta.dirname, '../fixtures/eventlog/generated');
const codecs = ['gz', 'zstd', 'lz4', 'snappy', 'lzf'] as const;
const seeds = Object.fromEntries(
  codecs.map((codec) => [codec, readFileSync(join(generated, `local-1430917381534.${codec}`))]),
) as Record<(typeof codecs)[number], Buffer>;
/** The first 40 lines of the same log, plain: small enough to mutate quickly. */
const plain = Buffer.from(
  `${readFileSync(join(generated, '../spark-test-data/spark-events/local-1430917381534'), 'utf8').split('\n').slice(0, 40).join('\n')}\n`,
);

const maxDecompressedBytes = 8 * 2 ** 20;

/** Reads `bytes` as a one-file log; returns the outcome, failing the property on an untyped error. */
async function outcome(
  bytes: Uint8Array,
  zstdDecoder: 'fzstd' | 'binary' | 'zlib' = 'fzstd',
  blockDecoder: BlockDecoderChoice = 'auto',
) {
  try {
    const { run, source } = await readEventLog(
      generatedUnit('mutated', () => [bytes]),
      { zstdDecoder, blockDecoder, limits: { maxDecompressedBytes, maxLineBytes: 2 ** 20 } },
    );
    const profile = buildRunProfile(run, source);
    expect(runProfileSchema.safeParse(profile).success).toBe(true);
    expect(profile.parse.bytesRead).toBeLessThanOrEqual(maxDecompressedBytes);
    expect(JSON.stringify(profile).length).toBeLessThanOrEqual(2 * profile.parse.bytesRead + 64 * 1024);
    return 'profile';
  } catch (error) {
    if (!isAppError(error))
      throw new Error(`untyped error: ${error instanceof Error ? error.stack : String(error)}`);
    expect(error.code).toMatch(/^EVENTLOG_[A-Z_]+$/);
    return error.code;
  }
}

/** A mutation of a byte string: flip bytes, cut it, splice random bytes in, or repeat a slice. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.nat(),
    byte: fc.integer({ min: 0, max: 255 }),
    count: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }),
  fc.record({
    kind: fc.constant('repeat' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 512 }),
    times: fc.integer({ min: 2, max: 50 }),
  }),
);

type Mutation =
  | { kind: 'flip'; at: number; byte: number; count: number }
  | { kind: 'cut'; at: number }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
  | { kind: 'repeat'; at: number; length: number; times: number };

function mutate(seed: Buffer, change: Mutation): Buffer {
  const at = change.at % Math.max(1, seed.length);
  switch (change.kind) {
    case 'flip': {
      const copy = Buffer.from(seed);
      for (let index = 0; index < change.count; index++) copy[(at + index * 997) % copy.length] = change.byte;
      return copy;
    }
    case 'cut':
      return seed.subarray(0, at);
    case 'splice':
      return Buffer.concat([seed.subarray(0, at), change.bytes, seed.subarray(at)]);
    case 'repeat': {
      const slice = seed.subarray(at, at + change.length);
      return Buffer.concat([
        seed.subarray(0, at),
        ...Array.from({ length: change.times }, () => slice),
        seed.subarray(at),
      ]);
    }
  }
}

describe('reader properties', () => {
  for (const codec of codecs) {
    it(`a mutated ${codec} log gives a profile or a typed error`, async () => {
      expect(await outcome(seeds[codec])).toBe('profile');
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (changes) => {
          const bytes = changes.reduce<Buffer>((current, change) => mutate(current, change), seeds[codec]);
          await outcome(bytes);
        }),
        { numRuns: 60 },
      );
    });
  }

  // lz4 and snappy default to the native block decoders where they load: fuzz the JavaScript ones too.
  for (const codec of ['lz4', 'snappy'] as const) {
    it(`a mutated ${codec} log gives a profile or a typed error with the JavaScript decoders`, async () => {
      expect(await outcome(seeds[codec], 'fzstd', 'js')).toBe('profile');
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (changes) => {
          const bytes = changes.reduce<Buffer>((current, change) => mutate(current, change), seeds[codec]);
          await outcome(bytes, 'fzstd', 'js');
        }),
        { numRuns: 60 },
      );
    });
  }

  it.skipIf(builtInZstdDecompress === null)(
    "a mutated zstd log gives a profile or a typed error with Node's built-in decoder",
    async () => {
      expect(await outcome(seeds.zstd, 'zlib')).toBe('profile');
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (changes) => {
          const bytes = changes.reduce<Buffer>((current, change) => mutate(current, change), seeds.zstd);
          await outcome(bytes, 'zlib');
        }),
        { numRuns: 60 },
      );
    },
  );

  it('mutated plain JSON lines give a profile or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (changes) => {
        await outcome(changes.reduce<Buffer>((current, change) => mutate(current, change), plain));
      }),
      { numRuns: 100 },
    );
  });

  it('random bytes behind every codec signature give a typed error, never a crash', async () => {
    const signatures = [
      [0x1f, 0x8b],
      [0x28, 0xb5, 0x2f, 0xfd],
      [...Buffer.from('LZ4Block')],
      [0x82, ...Buffer.from('SNAPPY'), 0],
      [...Buffer.from('ZV')],
      [0x50, 0x4b, 0x03, 0x04],
      [0x7b],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...signatures),
        fc.uint8Array({ maxLength: 2048 }),
        async (signature, tail) => {
          await outcome(Buffer.concat([Buffer.from(signature), tail]));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('random JSON values as lines give a profile or a typed error', async () => {
    const line = fc.oneof(
      fc.json(),
      fc
        .record({
          Event: fc.constantFrom(
            'SparkListenerTaskEnd',
            'SparkListenerJobStart',
            'SparkListenerStageCompleted',
            'SparkListenerEnvironmentUpdate',
            'SparkListenerExecutorAdded',
          ),
          rest: fc.jsonValue(),
        })
        .map(({ Event, rest }) =>
          JSON.stringify({
            Event,
            ...(typeof rest === 'object' && rest !== null && !Array.isArray(rest) ? rest : { x: rest }),
          }),
        ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), async (lines) => {
        await outcome(
          Buffer.from(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}\n${lines.join('\n')}`),
        );
      }),
      { numRuns: 150 },
    );
  });
});
