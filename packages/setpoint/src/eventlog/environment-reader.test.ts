import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SparkConfCollector } from './environment-reader.js';
import { isSecretKey, isSecretValue, keptSparkConfKeys, redactedValue } from './spark-conf-policy.js';

function collect(line: string, limits = { maxConfKeys: 256, maxConfValueChars: 2048 }) {
  const collector = new SparkConfCollector(limits);
  const buffer = Buffer.from(line);
  const ok = collector.readEnvironmentUpdate(buffer, 0, buffer.length);
  return { ok, conf: collector.conf(), counts: collector.counts };
}

const allowListed = [...keptSparkConfKeys, 'spark.databricks.clusterUsageTags.clusterWorkers', 'spark.emr.x'];

describe('SparkConfCollector', () => {
  it('keeps what JSON.parse + the allow-list would keep, for any properties', () => {
    const key = fc.oneof(
      fc.constantFrom(...allowListed),
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
      fc.integer(),
      fc.boolean(),
    );
    fc.assert(
      fc.property(
        fc.dictionary(key, value, { maxKeys: 30 }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        (properties, other) => {
          const line = JSON.stringify({
            Event: 'SparkListenerEnvironmentUpdate',
            ...other,
            'Spark Properties': properties,
          });
          const { ok, conf, counts } = collect(line);
          expect(ok).toBe(true);
          const parsed = JSON.parse(line)['Spark Properties'] as Record<string, unknown>;
          const expected: Record<string, string> = {};
          for (const [name, raw] of Object.entries(parsed)) {
            if (!allowListed.includes(name) && !name.startsWith('spark.emr.')) continue;
            const text = String(raw);
            expected[name] = isSecretKey(name) || isSecretValue(text) ? redactedValue : text;
          }
          expect(conf).toEqual(expected);
          expect(counts.seen).toBe(Object.keys(parsed).length);
        },
      ),
    );
  });

  it('refuses what is not a JSON object, and never throws on mutated input', () => {
    const base = JSON.stringify({
      Event: 'SparkListenerEnvironmentUpdate',
      'Spark Properties': { 'spark.master': 'local[*]', a: 'b' },
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: base.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        (at, byte) => {
          const buffer = Buffer.from(base);
          buffer[at] = byte;
          const collector = new SparkConfCollector();
          const ok = collector.readEnvironmentUpdate(buffer, 0, buffer.length);
          if (ok) expect(Object.keys(collector.conf()).length).toBeLessThanOrEqual(2);
        },
      ),
    );
    expect(collect('{"Spark Properties":{"spark.master":"x"').ok).toBe(false);
  });

  it('cuts long values and caps kept keys', () => {
    const properties = {
      'spark.master': 'x'.repeat(100),
      'spark.executor.memory': '4g',
      'spark.driver.memory': '2g',
    };
    const { conf, counts } = collect(JSON.stringify({ 'Spark Properties': properties }), {
      maxConfKeys: 2,
      maxConfValueChars: 10,
    });
    expect(conf).toEqual({ 'spark.master': 'xxxxxxxxxx…(truncated)', 'spark.executor.memory': '4g' });
    expect(counts).toEqual({ seen: 3, kept: 2, overLimit: 1, redacted: 0, truncated: 1 });
  });
});
