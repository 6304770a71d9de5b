import { InvalidArgumentError } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';

/** What a numeric option accepts. `above` is exclusive (a positive number is `above: 0`). */
export interface NumberRule {
  whole?: boolean;
  min?: number;
  max?: number;
  above?: number;
}

/** The rule in words, as every option error states it: "a whole number from 2 to 100". */
export function describeNumberRule(rule: NumberRule): string {
  const kind = rule.whole ? 'whole number' : 'number';
  if (rule.min !== undefined && rule.max !== undefined) return `a ${kind} from ${rule.min} to ${rule.max}`;
  if (rule.above === 0 || (rule.whole && rule.min === 1)) return `a positive ${kind}`;
  if (rule.above !== undefined) return `a ${kind} > ${rule.above}`;
  if (rule.min !== undefined) return `a ${kind} ≥ ${rule.min}`;
  return `a ${kind}`;
}

function accepts(rule: NumberRule, text: string): number | undefined {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value)) return undefined;
  if (rule.whole && !Number.isInteger(value)) return undefined;
  if (rule.min !== undefined && value < rule.min) return undefined;
  if (rule.max !== undefined && value > rule.max) return undefined;
  if (rule.above !== undefined && !(value > rule.above)) return undefined;
  return value;
}

/** A numeric option's value, or one readable line naming the flag, the rule and what was given. */
export function parseNumberOption(flag: string, text: string, rule: NumberRule): number {
  const value = accepts(rule, text);
  if (value === undefined) {
    throw new ValidationError('INVALID_OPTION', `${flag} expects ${describeNumberRule(rule)}, got "${text}"`);
  }
  return value;
}

/** A whole-number option within bounds. */
export function parseCount(flag: string, text: string, min: number, max: number): number {
  return parseNumberOption(flag, text, { whole: true, min, max });
}

/** The same rule as a commander argument parser: commander names the option and the value itself. */
export function numberArgument(rule: NumberRule): (text: string) => number {
  return (text) => {
    const value = accepts(rule, text);
    if (value === undefined) throw new InvalidArgumentError(`expected ${describeNumberRule(rule)}`);
    return value;
  };
}

/** `a, b,c` → ['a', 'b', 'c'] (blank entries dropped). */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

const unitMs: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A point in time as a commander argument parser: an ISO 8601 date or date-time (`2026-11-01`,
 * `2026-11-01T09:30Z`; a date alone is midnight UTC) or a span before now (`30m`, `24h`, `7d`).
 */
export function timeArgument(now: () => number = Date.now): (text: string) => number {
  return (text) => {
    const span = /^(\d+)([mhd])$/.exec(text.trim());
    if (span) return now() - Number(span[1]) * (unitMs[span[2] ?? 'm'] ?? 0);
    const at = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
      ? Date.parse(text.trim().length === 10 ? `${text.trim()}T00:00:00Z` : text.trim())
      : Number.NaN;
    if (!Number.isFinite(at))
      throw new InvalidArgumentError(
        'expected an ISO 8601 date or date-time, or a span before now like 24h or 7d',
      );
    return at;
  };
}
