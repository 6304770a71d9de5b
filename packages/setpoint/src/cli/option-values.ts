import { ValidationError } from '@setpoint/foundation/errors';

/** A whole-number option within bounds, or a one-line error naming the flag. */
export function parseCount(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(
      'INVALID_OPTION',
      `${flag} expects a whole number from ${min} to ${max}, got "${text}"`,
    );
  }
  return value;
}
