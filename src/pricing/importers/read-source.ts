import { readFile } from 'node:fs/promises';
import { NotFoundError, UpstreamError, ValidationError } from '../../errors/index.js';

/** How many Azure Retail Prices pages one import follows at most (100 items each). */
export const maxFollowedPages = 500;

/**
 * Reads a JSON document from a local file or an http(s) URL. Other URL schemes are refused: imports read
 * public price lists, never local services through odd schemes.
 */
export async function readJsonSource(location: string): Promise<unknown> {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(location)
    ? await fetchText(location)
    : await readLocal(location);
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

async function fetchText(url: string): Promise<string> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ValidationError('UNSUPPORTED_URL', `only http(s) URLs can be imported, got ${parsed.protocol}`);
  }
  let response: Response;
  try {
    response = await fetch(parsed, { redirect: 'follow', signal: AbortSignal.timeout(120_000) });
  } catch (error) {
    throw new UpstreamError('FETCH_FAILED', `cannot fetch ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    throw new UpstreamError('FETCH_FAILED', `fetching ${url} answered HTTP ${response.status}`);
  }
  return response.text();
}
