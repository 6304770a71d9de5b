/**
 * Regenerates tests/fixtures/eventlog/generated/: the same real event logs in every codec and layout
 * Spark and Databricks write, built to their exact byte layouts (lz4-java LZ4Block, snappy-java,
 * LZF chunks, multi-frame zstd with an open last frame, gzip, rolling and Databricks directories, zip).
 * Needs the `zstd` binary. Run: npx tsx scripts/eventlog/generate-codec-fixtures.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { lz4BlockStream, snappyJavaStream } from '@setpoint/bench/eventlog/spark-codec-writers';
import { zipSync } from 'fflate';

const fixtures = join(import.meta.dirname, '../../tests/fixtures/eventlog');
const out = join(fixtures, 'generated');
const plainLog = readFileSync(join(fixtures, 'spark-test-data/spark-events/local-1430917381534'));
const databricksLog = execFileSync('zstd', ['-dc', join(fixtures, 'real/db_subExecution_id.zstd')], {
  maxBuffer: 64 * 1024 * 1024,
});
const appId = 'local-1430917381534';

function write(path: string, bytes: Uint8Array): void {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), bytes);
}

/** Splits a log into `parts` pieces at line boundaries. */
function splitLines(log: Buffer, parts: number): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let part = 1; part <= parts; part++) {
    let end = part === parts ? log.length : Math.floor((log.length * part) / parts);
    end = part === parts ? end : log.indexOf(0x0a, end) + 1;
    pieces.push(log.subarray(start, end));
    start = end;
  }
  return pieces.filter((piece) => piece.length > 0);
}

function zstdFrame(bytes: Uint8Array): Buffer {
  return execFileSync('zstd', ['-q', '-c', '-1'], { input: bytes });
}

/** compress-lzf chunks, stored (type 0) — Spark-written compressed chunks are in ../spark4. */
function lzfStoredStream(bytes: Uint8Array): Buffer {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += 0xffff) {
    const chunk = bytes.subarray(offset, offset + 0xffff);
    const head = Buffer.from([0x5a, 0x56, 0, 0, 0]);
    head.writeUInt16BE(chunk.length, 3);
    pieces.push(head, Buffer.from(chunk));
  }
  return Buffer.concat(pieces);
}

rmSync(out, { recursive: true, force: true });
const [firstHalf, secondHalf] = splitLines(plainLog, 2) as [Buffer, Buffer];

write(`${appId}.gz`, gzipSync(plainLog));
const gzipped = gzipSync(plainLog);
write(`${appId}.truncated.gz`, gzipped.subarray(0, gzipped.length >> 1));
const frames = splitLines(plainLog, 4).map(zstdFrame);
write(`${appId}.zstd`, Buffer.concat(frames));
const openLastFrame = Buffer.concat([...frames.slice(0, 3), frames[3]!.subarray(0, frames[3]!.length - 200)]);
write(`${appId}.zstd.inprogress`, openLastFrame);
write(`${appId}.lz4`, Buffer.concat([lz4BlockStream(firstHalf), lz4BlockStream(secondHalf)]));
write(`${appId}.snappy`, Buffer.concat([snappyJavaStream(firstHalf), snappyJavaStream(secondHalf)]));
write(`${appId}.lzf`, lzfStoredStream(plainLog));

const rollingDir = `eventlog_v2_${appId}`;
for (const [index, part] of splitLines(plainLog, 11).entries()) {
  write(`${rollingDir}/events_${index + 1}_${appId}.zstd`, zstdFrame(part));
}
write(`${rollingDir}/appstatus_${appId}`, new Uint8Array(0));

const secondHeader = databricksLog.indexOf('{"Event":"DBCEventLoggingListenerMetadata"', 10);
const contextDir = 'databricks/0213-181500-abcd1234_10_139_64_5';
const contextId = '8880912756278443690';
write(
  `${contextDir}/${contextId}/eventlog-2024-02-13--19-00.gz`,
  gzipSync(databricksLog.subarray(0, secondHeader)),
);
// The live part is plain on Databricks; it is stored gzipped here to keep the fixture small (the
// reader goes by magic bytes, not names, so this also checks that).
write(`${contextDir}/${contextId}/eventlog`, gzipSync(databricksLog.subarray(secondHeader)));
write(`${contextDir}/1234567890123456789/eventlog`, readFileSync(join(fixtures, 'real/local-1532512550423')));
write(
  'databricks-context.zip',
  zipSync({
    [`${contextId}/eventlog-2024-02-13--19-00.gz`]: gzipSync(databricksLog.subarray(0, secondHeader)),
    [`${contextId}/eventlog`]: gzipSync(databricksLog.subarray(secondHeader)),
  }),
);
process.stdout.write(`wrote ${out}\n`);
