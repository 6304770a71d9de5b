/**
 * `npm run bench:peers [-- --source <log> … --size-mb 200 --repeats 1 --codecs plain,zstd --setpoint-only]`
 *
 * Setpoint's event-log engine beside its peers, on the same logs in one run: Spark's own replay
 * (the History Server's core, pyspark's jars) and NVIDIA's RAPIDS profiling tool. Each log is grown
 * to `--size-mb` by repeating its events with shifted ids and times (as `bench:eventlog` does) and
 * written in every codec; each tool reads each codec it supports in a process of its own, and the
 * bench prints CPU seconds (user + system of the process tree), wall time and peak RSS of each, and
 * how many times the CPU of Setpoint (one parsing thread) each peer used; on plain logs Setpoint also
 * reads with two parsing threads (`parseThreads: 2`), for the wall-time ratio of the two. Rounds interleave the tools so that each sees
 * the same background load; with several rounds every figure is the median. A machine without Java,
 * pyspark or the RAPIDS tools says so and leaves that peer out.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { quantile } from '@setpoint/foundation/statistics';
import { type BenchCodec, encodeLog, readLogLines, writeScaledLog } from '../eventlog/scaled-event-log.js';
import { measureProcess, type ProcessMeasurement } from './measure-process.js';
import { findRapidsProfiler, findSparkReplay, javaVersion, lastJsonLine, type Peer } from './peer-tools.js';

const repoRoot = join(import.meta.dirname, '../../../..');
const args = process.argv.slice(2);
const option = (name: string) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const defaultSources = [
  'tests/fixtures/eventlog/spark4/logs/eventlog_v2_local-1795240165860',
  '../shared/corpus/eventlogs/spark-rapids-tools/core/src/test/resources/spark-events-qualification/nds_q88_photon_db_13_3.zstd',
];
const sources = args.flatMap((arg, index) =>
  arg === '--source' && args[index + 1] ? [args[index + 1]!] : [],
);
const targetBytes = Number(option('--size-mb') ?? 200) * 1e6;
const repeats = Number(option('--repeats') ?? 1);
const allCodecs: BenchCodec[] = ['plain', 'gzip', 'zstd', 'lz4', 'snappy'];
const codecs = option('--codecs')
  ? allCodecs.filter((codec) => option('--codecs')?.split(',').includes(codec))
  : allCodecs;

/** Setpoint's engine on one thread, or reading lines on two (plain logs only: `parseThreads`). */
function setpointOn(threads: 1 | 2): Peer {
  return {
    name: threads === 1 ? 'Setpoint' : 'Setpoint, two threads',
    version: `Node ${process.version}`,
    reads: new Set(threads === 1 ? allCodecs : ['plain']),
    command: (file) => ({
      command: process.execPath,
      args: [join(import.meta.dirname, 'engine-child.js'), file, '--parse-threads', String(threads)],
    }),
    summary: lastJsonLine,
  };
}
const setpoint = setpointOn(1);

interface Row {
  tool: string;
  codec: BenchCodec;
  storedBytes: number;
  runs: ProcessMeasurement[];
}

const median = (values: number[]) => quantile(values, 0.5);
const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

async function benchSource(source: string, tools: Peer[], scratch: string): Promise<string> {
  const lines = await readLogLines(source, repoRoot);
  const plain = join(scratch, 'eventlog');
  const built = await writeScaledLog(lines, plain, targetBytes);
  process.stderr.write(`built ${mb(built.bytes)} MB from ${built.copies} copies of ${source}\n`);
  const log = { databricks: lines.some((line) => line.includes('"DBCEventLoggingListenerMetadata"')) };
  const rows: Row[] = [];
  const checks: string[] = [];
  for (const codec of codecs) {
    const file = encodeLog(plain, codec);
    const storedBytes = statSync(file).size;
    const readers = tools.filter((tool) => tool.reads.has(codec));
    const codecRows = readers.map((tool) => ({
      tool: tool.name,
      codec,
      storedBytes,
      runs: [] as ProcessMeasurement[],
    }));
    for (let round = 0; round < repeats; round++) {
      for (const [index, tool] of readers.entries()) {
        const { command, args: toolArgs } = tool.command(file, scratch, log);
        const run = await measureProcess(command, toolArgs, { cwd: repoRoot });
        if (run.exitCode !== 0)
          throw new Error(
            `${tool.name} failed on ${codec} (exit ${run.exitCode}): ${run.stderr.trim().slice(-2000)}`,
          );
        codecRows[index]!.runs.push(run);
        process.stderr.write(
          `${tool.name}, ${codec}: ${run.cpuSeconds.toFixed(1)} CPU-s, ${run.wallSeconds.toFixed(1)} s, ${mb(run.peakRssBytes)} MB, load ${loadavg()[0]!.toFixed(1)}\n`,
        );
        const summary = tool.summary(run.stdout);
        if (round === 0) checks.push(`${tool.name}, ${codec}: ${summary}`);
      }
    }
    rows.push(...codecRows);
    if (file !== plain) rmSync(file, { force: true });
  }
  rmSync(plain, { force: true });
  const cpuOf = (row: Row) => median(row.runs.map((run) => run.cpuSeconds));
  const setpointCpu = new Map(
    rows.filter((row) => row.tool === setpoint.name).map((row) => [row.codec, cpuOf(row)]),
  );
  const table = rows.map((row) => {
    const cpu = cpuOf(row);
    const wall = median(row.runs.map((run) => run.wallSeconds));
    const rss = median(row.runs.map((run) => run.peakRssBytes));
    const ratio =
      row.tool === setpoint.name ? '1' : (cpu / (setpointCpu.get(row.codec) ?? Number.NaN)).toFixed(1);
    // Setpoint reports its main thread's CPU: with two threads, the share left on the parsing thread
    const mainThread = row.runs.map((run) => Number(/"mainThreadCpuSeconds":([\d.]+)/.exec(run.stdout)?.[1]));
    const mainThreadCpu = mainThread.every(Number.isFinite) ? median(mainThread).toFixed(2) : '–';
    const walls = row.runs.map((run) => run.wallSeconds.toFixed(1)).join(' ');
    return `| ${row.tool} | ${row.codec} | ${mb(row.storedBytes)} | ${cpu.toFixed(1)} | ${(built.bytes / 1e6 / cpu).toFixed(0)} | ${ratio} | ${mainThreadCpu} | ${wall.toFixed(1)} (${walls}) | ${mb(rss)} |`;
  });
  return [
    `Source \`${source.replace(/^.*\/shared\/corpus\//, '../shared/corpus/')}\`: ${built.copies} copies of its events with shifted ids and times, ${mb(built.bytes)} MB uncompressed.`,
    '',
    '| tool | codec | stored MB | CPU s | MB per CPU-s | CPU × Setpoint | main-thread CPU s | wall s (each round) | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    'What each read (Setpoint: its profile; Spark replay: its listener; RAPIDS: its status counts):',
    '',
    ...checks.map((check) => `    ${check}`),
    '',
  ].join('\n');
}

const scratch = mkdtempSync(join(tmpdir(), 'setpoint-bench-peers-'));
try {
  const tools: Peer[] = [setpoint, setpointOn(2)];
  const notes: string[] = [];
  const sparkPython = option('--pyspark-python') ?? join(repoRoot, '.venv/bin/python');
  const rapidsPython = option('--rapids-python') ?? join(repoRoot, '.venv-rapids/bin/python');
  // --setpoint-only: the engine on one and two threads, no peers
  const lookups = args.includes('--setpoint-only')
    ? []
    : [findSparkReplay(sparkPython, scratch), findRapidsProfiler(rapidsPython)];
  for (const lookup of lookups) {
    if ('peer' in lookup) tools.push(lookup.peer);
    else notes.push(lookup.missing);
  }
  for (const note of notes) process.stderr.write(`skipped: ${note}\n`);
  const chosen =
    sources.length > 0
      ? sources
      : defaultSources.filter((source) => {
          try {
            statSync(join(repoRoot, source));
            return true;
          } catch {
            notes.push(`${source} is not on this machine`);
            return false;
          }
        });
  const tables: string[] = [];
  const loadBefore = loadavg()[0]!;
  for (const source of chosen) tables.push(await benchSource(source, tools, scratch));
  const command = ['npm run bench:peers', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  process.stdout.write(
    [
      `Command: \`${command}\``,
      `Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, Java ${javaVersion() ?? 'none'}; 1-minute load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
      `Tools: ${tools.map((tool) => `${tool.name} (${tool.version})`).join('; ')}.`,
      ...(notes.length > 0 ? [`Left out: ${notes.join('; ')}.`] : []),
      `${repeats === 1 ? 'One round' : `Medians of ${repeats} interleaved rounds`}; CPU is user + system of each tool's process tree, peak RSS the tree's resident memory sampled every 100 ms.`,
      '',
      ...tables,
    ].join('\n'),
  );
  process.stdout.write('\n');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
