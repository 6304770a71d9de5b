import { PassThrough } from 'node:stream';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { reportCliError } from './report-error.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('reportCliError', () => {
  it('prints one line and the documented exit code for an AppError', () => {
    const out = capture();

    const code = reportCliError(
      new NotFoundError('PROJECT_NOT_FOUND', 'project p-1 does not exist'),
      false,
      out.stream,
    );

    expect(code).toBe(3);
    expect(out.text()).toBe('setpoint: project p-1 does not exist\n');
  });

  it('adds the stack only with --debug', () => {
    const out = capture();

    const code = reportCliError(new ValidationError('BAD', 'bad flag'), true, out.stream);

    expect(code).toBe(2);
    expect(out.text()).toMatch(/^setpoint: bad flag\n.*at /s);
  });

  it('treats unknown errors as internal with exit code 1 and a hint', () => {
    const out = capture();

    const code = reportCliError(new TypeError('boom'), false, out.stream);

    expect(code).toBe(1);
    expect(out.text()).toBe(
      'setpoint: unexpected error: boom\nsetpoint: run again with --debug for details\n',
    );
  });
});
