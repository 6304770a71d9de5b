import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type OverlongLine } from './line-splitter.js';

function split(chunks: Buffer[], maxLineBytes: number) {
  const lines: string[] = [];
  const overlong: Array<Omit<OverlongLine, 'head'> & { head: string }> = [];
  let blank = 0;
  let largestDelivered = 0;
  const splitter = new LineSplitter(
    {
      line(buffer, start, end) {
        largestDelivered = Math.max(largestDelivered, end - start);
        lines.push(buffer.toString('utf8', start, end));
      },
      blankLines(count) {
        blank += count;
      },
      overlong(line) {
        overlong.push({ ...line, head: line.head.toString('latin1') });
      },
    },
    maxLineBytes,
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, overlong, blank, largestDelivered, total: splitter.lines };
}

function pieces(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    chunks.push(bytes.subarray(offset, offset + size));
  return chunks;
}

describe('LineSplitter', () => {
  it('joins lines across chunks and trims CR', () => {
    const { lines, total } = split(pieces('ab\r\ncd\nef', 3), 100);
    expect(lines).toEqual(['ab', 'cd', 'ef']);
    expect(total).toBe(3);
  });

  it('skips a line past the limit without delivering or holding it, and carries on', () => {
    const long = `{"Event":"SparkListenerEnvironmentUpdate",${'x'.repeat(10_000)}}`;
    const { lines, overlong, largestDelivered } = split(pieces(`a\n${long}\nb\n`, 64), 1000);
    expect(lines).toEqual(['a', 'b']);
    expect(largestDelivered).toBeLessThanOrEqual(1000);
    expect(overlong).toEqual([{ lineNumber: 2, bytes: long.length, head: long.slice(0, 256) }]);
  });

  it('reports an over-long line that fits in one chunk, and one cut at the end', () => {
    const { overlong } = split([Buffer.from(`${'y'.repeat(50)}\nok\n${'z'.repeat(70)}`)], 40);
    expect(overlong.map(({ lineNumber, bytes }) => [lineNumber, bytes])).toEqual([
      [1, 50],
      [3, 70],
    ]);
  });

  it('counts runs of empty lines in one call', () => {
    const { lines, blank, total } = split(pieces(`a\n${'\n'.repeat(5000)}b\n`, 700), 100);
    expect(lines).toEqual(['a', 'b']);
    expect(blank).toBe(5000);
    expect(total).toBe(5002);
  });

  it('splits any text the way String.split does, for any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z{}"\n]{0,30}$/), { maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }),
        (parts, size) => {
          const text = parts.join('\n');
          const { lines, blank, total } = split(pieces(text, size), 1000);
          const expected = text.split('\n');
          if (expected.at(-1) === '') expected.pop();
          expect(lines).toEqual(expected.filter((line) => line !== ''));
          expect(lines.length + blank).toBe(expected.length);
          expect(total).toBe(expected.length);
        },
      ),
    );
  });
});
