/**
 * Walks JSON text in a byte buffer without building it: enough to visit the entries of one object
 * and skip everything else. Used where JSON.parse would materialize input an attacker controls
 * (an EnvironmentUpdate with millions of properties). Every function returns the index just past
 * what it read, or -1 when the text is not well-formed there.
 */

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const colon = 0x3a;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

export function skipSpace(buffer: Buffer, at: number, end: number): number {
  while (at < end && isSpace(buffer[at])) at++;
  return at;
}

/** Past the string whose opening quote is at `at`. */
export function skipString(buffer: Buffer, at: number, end: number): number {
  let from = at + 1;
  for (;;) {
    const close = buffer.indexOf(quote, from);
    if (close === -1 || close >= end) return -1;
    let slashes = 0;
    while (buffer[close - 1 - slashes] === backslash) slashes++;
    if (slashes % 2 === 0) return close + 1;
    from = close + 1;
  }
}

/** Past the value starting at `at` (any JSON value; containers are matched by depth, not validated). */
export function skipValue(buffer: Buffer, at: number, end: number): number {
  const first = buffer[at];
  if (first === quote) return skipString(buffer, at, end);
  if (first === openBrace || first === openBracket) {
    let depth = 0;
    for (let index = at; index < end; index++) {
      const byte = buffer[index];
      if (byte === quote) {
        index = skipString(buffer, index, end) - 1;
        if (index < 0) return -1;
      } else if (byte === openBrace || byte === openBracket) depth++;
      else if (byte === closeBrace || byte === closeBracket) {
        depth--;
        if (depth === 0) return index + 1;
      }
    }
    return -1;
  }
  let index = at;
  while (index < end) {
    const byte = buffer[index];
    if (byte === comma || byte === closeBrace || byte === closeBracket || isSpace(byte)) break;
    index++;
  }
  return index > at ? index : -1;
}

/** One `"key": value` of an object: the key's raw content (between its quotes) and the value's extent. */
export interface JsonEntry {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

/** Calls `visit` for each entry of the object starting at `at` (after spaces); returns past its `}`. */
export function forEachEntry(
  buffer: Buffer,
  at: number,
  end: number,
  visit: (entry: JsonEntry) => void,
): number {
  let index = skipSpace(buffer, at, end);
  if (buffer[index] !== openBrace) return -1;
  index = skipSpace(buffer, index + 1, end);
  if (buffer[index] === closeBrace) return index + 1;
  for (;;) {
    if (index >= end || buffer[index] !== quote) return -1;
    const keyEnd = skipString(buffer, index, end);
    if (keyEnd === -1) return -1;
    let cursor = skipSpace(buffer, keyEnd, end);
    if (buffer[cursor] !== colon) return -1;
    const valueStart = skipSpace(buffer, cursor + 1, end);
    const valueEnd = skipValue(buffer, valueStart, end);
    if (valueEnd === -1) return -1;
    visit({ keyStart: index + 1, keyEnd: keyEnd - 1, valueStart, valueEnd });
    cursor = skipSpace(buffer, valueEnd, end);
    if (buffer[cursor] === comma) {
      index = skipSpace(buffer, cursor + 1, end);
      continue;
    }
    return buffer[cursor] === closeBrace ? cursor + 1 : -1;
  }
}

/** The text of a string's raw content `buffer[start, end)`, escapes decoded; undefined if invalid. */
export function decodeStringContent(buffer: Buffer, start: number, end: number): string | undefined {
  if (buffer.subarray(start, end).indexOf(backslash) === -1) return buffer.toString('utf8', start, end);
  try {
    const value: unknown = JSON.parse(buffer.toString('utf8', start - 1, end + 1));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `buffer[start, end)` holds exactly the ASCII text `text`. */
export function bytesEqual(buffer: Buffer, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let index = 0; index < text.length; index++) {
    if (buffer[start + index] !== text.charCodeAt(index)) return false;
  }
  return true;
}
