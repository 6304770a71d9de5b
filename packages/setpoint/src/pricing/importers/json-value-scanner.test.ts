import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { importAwsOffer, importAwsOfferStream } from './aws-offer.js';
import { createJsonValueScanner } from './json-value-scanner.js';

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks;
}

function scan(text: string, size: number, select: (path: readonly string[]) => boolean) {
  const found: [string, unknown][] = [];
  const scanner = createJsonValueScanner(3, select, (path, value) => found.push([path.join('.'), value]));
  for (const chunk of chunked(text, size)) scanner.write(chunk);
  scanner.end();
  return found;
}

const document = {
  offerCode: 'AmazonEC2',
  'we\\ird "key"': { skipped: [1, 2, { deep: 'x}' }] },
  publicationDate: '2024-07-15T18:00:00Z',
  count: -12.5e2,
  flag: true,
  nothing: null,
  products: {
    A1: { sku: 'A1', attributes: { note: 'braces } ] { [ and "quotes" \\ \u00e9' } },
    B2: { sku: 'B2', list: [[], {}, [null, false]] },
  },
  terms: { OnDemand: { A1: { x: { y: 1 } } }, Reserved: { A1: { z: 2 } } },
};

describe('streaming JSON value scanner', () => {
  const text = JSON.stringify(document, null, 1);
  const select = (path: readonly string[]) =>
    (path.length === 1 && path[0] !== 'products' && path[0] !== 'terms') ||
    (path.length === 2 && path[0] === 'products') ||
    (path.length === 3 && path[1] === 'OnDemand');

  it.each([1, 2, 3, 7, 64, 100_000])('finds the selected values whatever the chunk size (%i)', (size) => {
    expect(scan(text, size, select)).toEqual([
      ['offerCode', document.offerCode],
      ['we\\ird "key"', document['we\\ird "key"']],
      ['publicationDate', document.publicationDate],
      ['count', document.count],
      ['flag', true],
      ['nothing', null],
      ['products.A1', document.products.A1],
      ['products.B2', document.products.B2],
      ['terms.OnDemand.A1', document.terms.OnDemand.A1],
    ]);
  });

  it('a bare number at the end of the document is complete; a truncated document is an error', () => {
    expect(scan('42', 1, (path) => path.length === 0)).toEqual([['', 42]]);
    expect(() => scan(text.slice(0, text.length - 10), 50, select)).toThrow(ValidationError);
  });
});

describe('streaming AWS offer import', () => {
  it('gives the same catalog entries as parsing the whole file', async () => {
    const path = join('tests', 'fixtures', 'pricing', 'aws-ec2-offer.json');
    const text = readFileSync(path, 'utf8');
    const whole = importAwsOffer(JSON.parse(text), 'fixture').layer;
    async function* chunks() {
      yield* chunked(text, 5);
    }
    const streamed = (await importAwsOfferStream(chunks(), 'fixture')).layer;
    const comparable = (layer: typeof whole) => ({ ...layer, importedAt: undefined });
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(streamed.instancePrices).toHaveLength(2);
  });
});
