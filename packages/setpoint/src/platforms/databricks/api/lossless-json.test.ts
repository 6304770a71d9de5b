import { describe, expect, it } from 'vitest';
import { parseLosslessJson } from './lossless-json.js';

describe('parseLosslessJson', () => {
  it('keeps int64 ids beyond 2^53 exact, as decimal strings', () => {
    const parsed = parseLosslessJson(
      '{"cluster_id":"c-1","spark_context_id":8880912756278443690,"n":[7109237026247389532]}',
    );

    expect(parsed).toEqual({
      cluster_id: 'c-1',
      spark_context_id: '8880912756278443690',
      n: ['7109237026247389532'],
    });
  });

  it('leaves small numbers as numbers and digits inside strings untouched', () => {
    const parsed = parseLosslessJson(
      '{"num_workers":8,"msg":"id: 12345678901234567, ok","escaped":"a\\"b:12345678901234567"}',
    );

    expect(parsed).toEqual({
      num_workers: 8,
      msg: 'id: 12345678901234567, ok',
      escaped: 'a"b:12345678901234567',
    });
  });
});
