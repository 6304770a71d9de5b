/**
 * One measurement of `npm run bench:eventlog`, in its own process so peak RSS is its own:
 *   baseline <file>  split lines and JSON.parse every line, nothing else
 *   engine <file>    analyzeEventLog (decode + aggregate + RunProfile)
 * Prints one JSON line: {mode, seconds, cpuSeconds, mainThreadCpuSeconds, uncompressedBytes,
 * peakRssBytes, tasks}. cpuSeconds is all the work: every thread of this process (zlib's threadpool,
 * workers) plus its finished children (a `zstd -dc`); mainThreadCpuSeconds is the parsing thread's.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { analyzeEventLog } from 'setpoint/eventlog/index';

const [mode, file] = process.argv.slice(2);
if (!file || (mode !== 'baseline' && mode !== 'engine')) {
  process.stderr.write('usage: bench-child.ts baseline|engine <file>\n');
  process.exit(2);
}

/**
 * This process's peak resident set. Linux's getrusage maxRSS can carry the parent's peak across
 * fork + exec, so VmHWM (reset on exec) is read when /proc is there.
 */
function peakResidentBytes(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

async function baseline(path: string): Promise<{ bytes: number; lines: number }> {
  let carry: Buffer | undefined;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const data: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
      if (end > start) JSON.parse(data.toString('utf8', start, end));
      lines++;
      start = end + 1;
    }
    carry = start < data.length ? data.subarray(start) : undefined;
  }
  if (carry) JSON.parse(carry.toString('utf8'));
  return { bytes, lines };
}

/** CPU seconds from /proc: this process's main thread, and its waited-for children. */
function procCpuSeconds(): { mainThread: number; children: number } {
  const ticks = 100; // USER_HZ on Linux
  const fields = (path: string) =>
    readFileSync(path, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')
      .map(Number);
  try {
    const thread = fields(`/proc/self/task/${process.pid}/stat`);
    const self = fields('/proc/self/stat');
    // After "pid (comm) ", field 3 (state) is index 0: utime=14, stime=15, cutime=16, cstime=17.
    return { mainThread: (thread[11]! + thread[12]!) / ticks, children: (self[13]! + self[14]!) / ticks };
  } catch {
    return { mainThread: Number.NaN, children: 0 };
  }
}

const started = process.hrtime.bigint();
const cpuStarted = process.cpuUsage();
const procStarted = procCpuSeconds();
let uncompressedBytes: number;
let tasks = 0;
if (mode === 'baseline') {
  uncompressedBytes = (await baseline(file)).bytes;
} else {
  const profile = await analyzeEventLog(file);
  uncompressedBytes = profile.parse.bytesRead;
  tasks = profile.totals.tasks;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuStarted);
const procEnded = procCpuSeconds();
const mainThreadCpuSeconds = procEnded.mainThread - procStarted.mainThread;
const cpuSeconds = (cpu.user + cpu.system) / 1e6 + procEnded.children - procStarted.children;
const peakRssBytes = peakResidentBytes();
process.stdout.write(
  `${JSON.stringify({ mode, seconds, cpuSeconds, mainThreadCpuSeconds, uncompressedBytes, peakRssBytes, tasks })}\n`,
);
