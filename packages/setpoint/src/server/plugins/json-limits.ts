import { TooLargeError, ValidationError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';

/** Deeper JSON is refused before it is parsed: no Setpoint document nests anywhere near this. */
export const maxJsonDepth = 64;
/**
 * More values than this (array items and object members) are refused before parsing: parsing and
 * checking millions of tiny values holds the event loop for seconds (3 M tasks in a cluster report held
 * `/healthz` 1.3 s), and no Setpoint document comes close (a day of cluster events is ~100,000).
 */
export const maxJsonValues = 250_000;

/** The deepest `[`/`{` nesting of a JSON text and how many values its containers hold, scanned without parsing. */
export function jsonShape(text: string): { depth: number; values: number } {
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let inString = false;
  let emptyContainer = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 92)
        i += 1; // backslash: skip the escaped character
      else if (char === 34) inString = false;
      continue;
    }
    if (char === 32 || char === 10 || char === 13 || char === 9) continue;
    if (char === 34) inString = true;
    if (char === 123 || char === 91) {
      if (emptyContainer) values += 1;
      depth += 1;
      if (depth > deepest) deepest = depth;
      // a container's first value is counted when something other than its closing bracket follows
      emptyContainer = true;
      continue;
    }
    if (char === 125 || char === 93) depth -= 1;
    else if (char === 44) values += 1;
    else if (emptyContainer) values += 1;
    emptyContainer = false;
  }
  return { depth: deepest, values };
}

/**
 * Refuses JSON nested deeper than `maxJsonDepth` (400 JSON_TOO_DEEP) or holding more than `maxValues`
 * values (413 JSON_TOO_MANY_VALUES), naming `what`.
 */
export function assertJsonShape(text: string, what: string, maxValues = maxJsonValues): void {
  const { depth, values } = jsonShape(text);
  if (depth > maxJsonDepth) {
    throw new ValidationError('JSON_TOO_DEEP', `${what} nests deeper than ${maxJsonDepth} levels`);
  }
  if (values > maxValues) {
    throw new TooLargeError(
      'JSON_TOO_MANY_VALUES',
      `${what} holds more than ${maxValues.toLocaleString('en-US')} values (about ${values.toLocaleString('en-US')}); no Setpoint document needs that many`,
    );
  }
}

/** Fastify's own JSON body parser, behind the depth and value-count checks. */
export function registerJsonLimits(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      assertJsonShape(body as string, 'the JSON body');
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
