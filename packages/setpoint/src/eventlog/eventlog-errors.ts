import { ValidationError } from '@setpoint/foundation/errors';

/**
 * A compressed stream that stops mid-block. Readers turn it into a warning for in-progress logs
 * (whose last block or frame is legitimately open) and into an error otherwise.
 */
export class TruncatedStreamError extends ValidationError {
  constructor(source: string, codec: string) {
    super('EVENTLOG_TRUNCATED', `${source}: the ${codec} stream is truncated (the file ends mid-block)`);
  }
}

export function corruptStream(source: string, codec: string, problem: string): ValidationError {
  return new ValidationError('EVENTLOG_CORRUPT', `${source}: not a valid ${codec} stream (${problem})`);
}
