import { describe, expect, it } from 'vitest';
import { UpstreamError } from './app-error.js';
import { type AnswerSchema, upstreamAnswer } from './upstream-answer.js';

/** A schema of `{ id: string }`, written by hand: the helper needs only `safeParse`. */
const idSchema: AnswerSchema<{ id: string }> = {
  safeParse(value) {
    if (typeof value !== 'object' || value === null)
      return { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } };
    const id = (value as { id?: unknown }).id;
    return typeof id === 'string'
      ? { success: true, data: { id } }
      : { success: false, error: { issues: [{ path: ['items', 0, 'id'], message: 'expected a string' }] } };
  },
};
const source = { code: 'EXAMPLE_UNEXPECTED_RESPONSE', call: 'Example things/get' };

describe('upstreamAnswer', () => {
  it('gives the parsed answer when it has the expected shape', () => {
    expect(upstreamAnswer(idSchema, { id: 'a-1' }, source)).toEqual({ id: 'a-1' });
  });

  it('refuses another shape as an upstream error with the adapter’s code, naming the call and the field', () => {
    let error: unknown;
    try {
      upstreamAnswer(idSchema, { id: 7 }, source);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('EXAMPLE_UNEXPECTED_RESPONSE');
    expect((error as UpstreamError).message).toBe(
      'Example things/get answered an unexpected shape at items.0.id: expected a string',
    );
  });

  it('says the top level when the answer itself is wrong', () => {
    expect(() => upstreamAnswer(idSchema, null, source)).toThrow(
      'Example things/get answered an unexpected shape at the top level: expected an object',
    );
  });
});
