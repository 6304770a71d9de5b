/** A request body as it travels: an object of unknown fields. Rules read it defensively. */
export type JsonObject = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `key`, or an empty one when it is absent or not an object. */
export function objectAt(record: JsonObject, key: string): JsonObject {
  const value = record[key];
  return isObject(value) ? value : {};
}

/**
 * A number as the platforms' JSON parsers take it: a JSON number, or a decimal string (proto3's JSON
 * mapping, which Databricks' Jobs and Clusters APIs use, accepts "6" for 6). Anything else: NaN, which
 * every range check fails.
 */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return Number.NaN;
}

/** True when `value` is an integer within [min, max] (either bound may be absent). */
export function isIntegerIn(value: unknown, min?: number, max?: number): boolean {
  const number = numberOf(value);
  return (
    Number.isInteger(number) && (min === undefined || number >= min) && (max === undefined || number <= max)
  );
}

/** The value as the message shows it: strings quoted, the rest as JSON. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}
