import type { ByteSource } from '../codec/byte-source.js';
import { type DecodeOptions, decodeSource } from '../codec/decode-source.js';

const rolloverPattern = /"Rollover Number"\s*:\s*(\d+)/;
const contextPattern = /"SparkContext Id"\s*:\s*(-?\d+)/;
const datePattern = /eventlog-(\d{4})-(\d{2})-(\d{2})--(\d{2})-(\d{2})/;
const headerPeekBytes = 64 * 1024;

interface PartHeader {
  source: ByteSource;
  rollover: number | null;
  contextId: string | null;
  date: string | null;
}

/**
 * Orders Databricks cluster-log parts (`eventlog-YYYY-MM-DD--HH-MM.gz` rotated parts plus the live
 * `eventlog`) by the `Rollover Number` of each part's DBCEventLoggingListenerMetadata header,
 * falling back to the date in the name (the live part last). Gaps, duplicates and mixed
 * SparkContext ids are reported as warnings: the parts are still read.
 */
export async function orderDatabricksParts(
  parts: ByteSource[],
  options: DecodeOptions,
): Promise<{ parts: ByteSource[]; warnings: string[] }> {
  const headers = await Promise.all(parts.map((source) => readHeader(source, options)));
  const warnings: string[] = [];
  const byRollover = headers.every((header) => header.rollover !== null);
  headers.sort((a, b) =>
    byRollover ? a.rollover! - b.rollover! : (a.date ?? '9999').localeCompare(b.date ?? '9999'),
  );
  if (byRollover) {
    const numbers = headers.map((header) => header.rollover!);
    const duplicates = numbers.filter((value, index) => numbers.indexOf(value) !== index);
    if (duplicates.length > 0)
      warnings.push(`duplicate Databricks rollover numbers: ${duplicates.join(', ')}`);
    const gaps = numbers.slice(1).filter((value, index) => value - numbers[index]! > 1);
    if (gaps.length > 0)
      warnings.push(`missing Databricks log parts before rollover number ${gaps.join(', ')}`);
  }
  const contexts = new Set(headers.map((header) => header.contextId).filter((id) => id !== null));
  if (contexts.size > 1) warnings.push(`Databricks log parts from ${contexts.size} different SparkContexts`);
  return { parts: headers.map((header) => header.source), warnings };
}

async function readHeader(source: ByteSource, options: DecodeOptions): Promise<PartHeader> {
  const match = datePattern.exec(source.name);
  const date = match ? match.slice(1).join('') : null;
  const head = await readDecodedHead(source, options);
  const firstLine = head.split('\n', 1)[0] ?? '';
  const isHeader = firstLine.includes('"DBCEventLoggingListenerMetadata"');
  const rollover = isHeader ? rolloverPattern.exec(firstLine)?.[1] : undefined;
  return {
    source,
    rollover: rollover === undefined ? null : Number(rollover),
    contextId: isHeader ? (contextPattern.exec(firstLine)?.[1] ?? null) : null,
    date,
  };
}

async function readDecodedHead(source: ByteSource, options: DecodeOptions): Promise<string> {
  const { chunks } = await decodeSource(source, {
    ...(options.zstdDecoder ? { zstdDecoder: options.zstdDecoder } : {}),
    ...(options.blockDecoder ? { blockDecoder: options.blockDecoder } : {}),
  });
  const pieces: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of chunks) {
      const piece = Buffer.from(chunk);
      pieces.push(piece);
      length += piece.length;
      if (piece.includes(0x0a) || length >= headerPeekBytes) break;
    }
  } catch {
    // A damaged part still gets ordered by name; reading it reports the damage.
  }
  return Buffer.concat(pieces).toString('utf8', 0, Math.min(length, headerPeekBytes));
}
