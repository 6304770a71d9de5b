import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { NotFoundError, UpstreamError, ValidationError } from '@setpoint/foundation/errors';

/** How many Azure Retail Prices pages one import follows at most (100 items each). */
export const maxFollowedPages = 500;

/** Anything with a scheme is treated as a URL (and refused unless http or https). */
const isUrl = (location: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(location);

/**
 * Reads a JSON document from a local file or an http(s) URL. Other URL schemes are refused: imports read
 * public price lists, never local services through odd schemes.
 */
export async function readJsonSource(location: string): Promise<unknown> {
  const text = isUrl(location) ? await fetchText(location) : await readLocal(location);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError('INVALID_JSON', `${location} is not JSON: ${(error as Error).message}`);
  }
}

async function readLocal(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new NotFoundError('SOURCE_NOT_FOUND', `cannot read ${path}: ${(error as Error).message}`);
  }
}

async function fetchResponse(url: string): Promise<Response> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ValidationError('UNSUPPORTED_URL', `only http(s) URLs can be imported, got ${parsed.protocol}`);
  }
  let response: Response;
  try {
    response = await fetch(parsed, { redirect: 'follow' });
  } catch (error) {
    throw new UpstreamError('FETCH_FAILED', `cannot fetch ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    throw new UpstreamError('FETCH_FAILED', `fetching ${url} answered HTTP ${response.status}`);
  }
  return response;
}

async function fetchText(url: string): Promise<string> {
  return (await fetchResponse(url)).text();
}

/** A file or http(s) document as a stream of text chunks, for documents too large to hold as one string. */
export async function* readTextChunks(location: string): AsyncGenerator<string> {
  if (isUrl(location)) {
    const body = (await fetchResponse(location)).body;
    if (!body) return;
    yield* body.pipeThrough(new TextDecoderStream());
    return;
  }
  try {
    for await (const chunk of createReadStream(location, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      yield chunk as string;
    }
  } catch (error) {
    throw new NotFoundError('SOURCE_NOT_FOUND', `cannot read ${location}: ${(error as Error).message}`);
  }
}
