import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';

/** Deeper JSON is refused before it is parsed: no Setpoint document nests anywhere near this. */
export const maxJsonDepth = 64;

/** The deepest `[`/`{` nesting of a JSON text, scanned without parsing (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 92)
        i += 1; // backslash: skip the escaped character
      else if (char === 34) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 123 || char === 91) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (char === 125 || char === 93) depth -= 1;
  }
  return deepest;
}

/** Refuses JSON nested deeper than `maxJsonDepth` with a 400 naming `what`. */
export function assertJsonDepth(text: string, what: string): void {
  if (jsonDepth(text) > maxJsonDepth) {
    throw new ValidationError('JSON_TOO_DEEP', `${what} nests deeper than ${maxJsonDepth} levels`);
  }
}

/** Fastify's own JSON body parser, behind the depth check. */
export function registerJsonDepthLimit(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      assertJsonDepth(body as string, 'the JSON body');
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
