import { ValidationError } from '@setpoint/foundation/errors';

/**
 * Finds selected values in a JSON document read chunk by chunk, without holding the document: AWS offer
 * files are larger than the biggest string V8 can build, so `JSON.parse` of the whole file is impossible.
 * The scanner tracks only nesting, strings and the keys of the first `maxSelectDepth` levels; a value whose
 * path is selected is captured as text and parsed on its own.
 */
export interface JsonValueScanner {
  write(chunk: string): void;
  end(): void;
}

interface Frame {
  isObject: boolean;
  expectingKey: boolean;
  key: string | undefined;
}

interface Capture {
  path: string[];
  /** Stack depth when the value started (its container depth). */
  depth: number;
  kind: 'container' | 'string' | 'bare';
  parts: string[];
}

/** Character codes of the JSON punctuation. */
const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const colon = 0x3a;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

const isWhitespace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9;

/** Index of `char` at or after `from`, or the chunk length when there is none. */
function positionOf(chunk: string, char: string, from: number): number {
  const found = chunk.indexOf(char, from);
  return found < 0 ? chunk.length : found;
}

export function createJsonValueScanner(
  maxSelectDepth: number,
  select: (path: readonly string[]) => boolean,
  onValue: (path: readonly string[], value: unknown) => void,
): JsonValueScanner {
  const stack: Frame[] = [];
  let inString = false;
  let escaped = false;
  let collectingKey = false;
  let keyRaw = '';
  let inBare = false;
  let capture: Capture | undefined;
  let segmentStart = 0;

  const startValue = (index: number, kind: Capture['kind']): void => {
    if (capture || stack.length > maxSelectDepth) return;
    const path = stack.map((frame) => frame.key ?? '[]');
    if (!select(path)) return;
    capture = { path, depth: stack.length, kind, parts: [] };
    segmentStart = index;
  };

  const finish = (chunk: string, endExclusive: number): void => {
    if (!capture) return;
    capture.parts.push(chunk.slice(segmentStart, endExclusive));
    const { path, parts } = capture;
    capture = undefined;
    let value: unknown;
    try {
      value = JSON.parse(parts.join(''));
    } catch (error) {
      throw new ValidationError(
        'INVALID_JSON',
        `malformed JSON at ${path.join('.')}: ${(error as Error).message}`,
      );
    }
    onValue(path, value);
  };

  const write = (chunk: string): void => {
    const length = chunk.length;
    segmentStart = 0;
    let keyStart = 0;
    // Positions of the next quote and backslash, so string contents are skipped with indexOf.
    let nextQuote = -1;
    let nextBackslash = -1;
    let index = 0;
    while (index < length) {
      if (inString) {
        if (escaped) {
          escaped = false;
          index += 1;
          continue;
        }
        if (nextQuote < index) nextQuote = positionOf(chunk, '"', index);
        if (nextBackslash < index) nextBackslash = positionOf(chunk, '\\', index);
        index = Math.min(nextQuote, nextBackslash);
        if (index >= length) break;
        if (chunk.charCodeAt(index) === backslash) {
          escaped = true;
          index += 1;
          continue;
        }
        inString = false;
        if (collectingKey) {
          collectingKey = false;
          keyRaw += chunk.slice(keyStart, index);
          const frame = stack.at(-1);
          if (frame) frame.key = JSON.parse(`"${keyRaw}"`) as string;
        } else if (capture?.kind === 'string' && capture.depth === stack.length) {
          finish(chunk, index + 1);
        }
        index += 1;
        continue;
      }
      const code = chunk.charCodeAt(index);
      if (inBare) {
        if (!(isWhitespace(code) || code === comma || code === closeBrace || code === closeBracket)) {
          index += 1;
          continue;
        }
        inBare = false;
        if (capture?.kind === 'bare' && capture.depth === stack.length) finish(chunk, index);
      }
      if (!isWhitespace(code)) {
        const frame = stack.at(-1);
        if (code === quote) {
          inString = true;
          if (frame?.isObject && frame.expectingKey) {
            if (!capture) {
              collectingKey = true;
              keyRaw = '';
              keyStart = index + 1;
            }
          } else {
            startValue(index, 'string');
          }
        } else if (code === colon) {
          if (frame) frame.expectingKey = false;
        } else if (code === comma) {
          if (frame?.isObject) frame.expectingKey = true;
        } else if (code === openBrace || code === openBracket) {
          startValue(index, 'container');
          stack.push({ isObject: code === openBrace, expectingKey: code === openBrace, key: undefined });
        } else if (code === closeBrace || code === closeBracket) {
          stack.pop();
          if (capture?.kind === 'container' && capture.depth === stack.length) finish(chunk, index + 1);
        } else {
          inBare = true;
          startValue(index, 'bare');
        }
      }
      index += 1;
    }
    if (collectingKey) keyRaw += chunk.slice(keyStart);
    if (capture) capture.parts.push(chunk.slice(segmentStart));
  };

  return {
    write,
    end: () => {
      if (capture?.kind === 'bare') finish('', 0);
      if (stack.length > 0 || inString || capture) {
        throw new ValidationError('INVALID_JSON', 'the JSON document ends before it is complete');
      }
    },
  };
}
