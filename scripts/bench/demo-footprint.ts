/**
 * The dashboard demo as a newcomer meets it: `setpoint demo` started as a user would, then at each
 * checkpoint (default 150 s) the process tree's RSS, the data directory's size, the CPU it used, whether
 * the printed sign-in link works (once), whether a project is still learning and whether any run is
 * dated after now; and the tree's RSS sampled every second from start to the last checkpoint, for its
 * peak (`--samples <file>` writes the series as CSV). Ctrl+C at the end must exit cleanly. Rewrites
 * "Dashboard demo" in docs/benchmarks.md.
 * Usage: npm run bench:demo [-- --at 150,1800] [--samples demo-rss.csv]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, repoRoot, writeBenchmarkSection } from './docs-section.js';

const atFlag = process.argv.indexOf('--at');
const checkpoints = (atFlag === -1 ? '150' : (process.argv[atFlag + 1] ?? '150')).split(',').map(Number);
if (checkpoints.some((seconds) => !Number.isFinite(seconds) || seconds <= 0))
  throw new Error('--at expects seconds, e.g. 150,1800');
const samplesFlag = process.argv.indexOf('--samples');
const samplesPath = samplesFlag === -1 ? null : process.argv[samplesFlag + 1];
if (samplesFlag !== -1 && !samplesPath) throw new Error('--samples expects a file name, e.g. demo-rss.csv');

const clockTicks = 100;
const pageSize = 4096;

/** pid and every descendant, from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index] ?? -1) ?? []));
  return tree;
}

interface ProcessUsage {
  pid: number;
  rssBytes: number;
  threads: number;
}

function treeUsage(root: number): { rssBytes: number; cpuSeconds: number; processes: ProcessUsage[] } {
  let rssBytes = 0;
  let cpuSeconds = 0;
  const processes: ProcessUsage[] = [];
  for (const pid of processTree(root)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      cpuSeconds += (Number(fields[11]) + Number(fields[12])) / clockTicks;
      const rss = Number(fields[21]) * pageSize;
      rssBytes += rss;
      processes.push({ pid, rssBytes: rss, threads: Number(fields[17]) });
    } catch {
      // ended
    }
  }
  return { rssBytes, cpuSeconds, processes };
}

/** A process's anonymous memory (heaps, malloc arenas, thread stacks), from smaps_rollup; 0 when it ended. */
function anonymousBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Anonymous:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

const dataDir = join(mkdtempSync(join(tmpdir(), 'setpoint-bench-demo-')), 'demo');
const demo = spawn(
  process.execPath,
  [join(repoRoot, 'bin/setpoint.js'), 'demo', '--port', '0', '--data-dir', dataDir],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let stdout = '';
let stderr = '';
demo.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
demo.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));

const startLoad = loadavg()[0] ?? 0;
const startedAt = Date.now();

/** The tree's RSS every second: the peak, with each process's share and threads at that moment. */
interface Sample {
  seconds: number;
  rssBytes: number;
  processes: Array<ProcessUsage & { anonymousBytes: number }>;
}
const series: string[] = ['seconds,rss_mb,processes,threads'];
let peak: Sample | null = null;
const sampler = setInterval(() => {
  const usage = treeUsage(demo.pid ?? 0);
  const seconds = (Date.now() - startedAt) / 1000;
  const threads = usage.processes.reduce((sum, entry) => sum + entry.threads, 0);
  series.push(
    `${seconds.toFixed(0)},${(usage.rssBytes / 1e6).toFixed(1)},${usage.processes.length},${threads}`,
  );
  if (!peak || usage.rssBytes > peak.rssBytes) {
    const processes = usage.processes.map((entry) => ({
      ...entry,
      anonymousBytes: anonymousBytes(entry.pid),
    }));
    peak = { seconds, rssBytes: usage.rssBytes, processes };
  }
}, 1000);
const link = await new Promise<string>((resolve, reject) => {
  const poll = setInterval(() => {
    const match = /(http:\/\/localhost:\d+\/api\/v1\/session\/demo\?token=\S+)/.exec(stdout);
    if (match?.[1]) {
      clearInterval(poll);
      resolve(match[1]);
    } else if (demo.exitCode !== null || Date.now() - startedAt > 120_000) {
      clearInterval(poll);
      reject(new Error(`the demo printed no sign-in link:\n${stdout}\n${stderr}`));
    }
  }, 200);
});
const base = new URL(link).origin;
const readyMs = Date.now() - startedAt;

interface Checkpoint {
  seconds: number;
  rssMb: number;
  dataMb: number;
  cpuPercent: number;
  learning: number;
  projects: number;
  futureRuns: number;
  runs: number;
}

let cookie = '';
const signIn = { first: 0, second: 0 };
const rows: Checkpoint[] = [];
let lastCpu = { at: startedAt, cpuSeconds: 0 };
for (const seconds of checkpoints) {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + seconds * 1000 - Date.now())));
  const usage = treeUsage(demo.pid ?? 0);
  const now = Date.now();
  if (!cookie) {
    const first = await fetch(link, { redirect: 'manual' });
    signIn.first = first.status;
    cookie = first.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    signIn.second = (await fetch(link, { redirect: 'manual' })).status;
  }
  const get = async <T>(path: string) =>
    (await (await fetch(`${base}${path}`, { headers: { cookie } })).json()) as T;
  const projects = await get<{ items: { id: string; phase: string }[] }>('/api/v1/projects?limit=200');
  let futureRuns = 0;
  let runs = 0;
  for (const project of projects.items) {
    const page = await get<{ items: { started_at: number | null; ended_at: number | null }[] }>(
      `/api/v1/projects/${project.id}/runs?limit=500`,
    );
    runs += page.items.length;
    futureRuns += page.items.filter((run) => Math.max(run.started_at ?? 0, run.ended_at ?? 0) > now).length;
  }
  rows.push({
    seconds,
    rssMb: usage.rssBytes / 1e6,
    dataMb: directoryBytes(dataDir) / 1e6,
    cpuPercent: (100 * (usage.cpuSeconds - lastCpu.cpuSeconds)) / ((now - lastCpu.at) / 1000),
    learning: projects.items.filter((project) => project.phase === 'LEARNING').length,
    projects: projects.items.length,
    futureRuns,
    runs,
  });
  lastCpu = { at: now, cpuSeconds: usage.cpuSeconds };
  process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
}
clearInterval(sampler);
demo.kill('SIGINT');
const exitCode = await exited;
if (samplesPath) writeFileSync(samplesPath, `${series.join('\n')}\n`);
rmSync(join(dataDir, '..'), { recursive: true, force: true });

const first = rows[0];
const table = rows.map(
  (row) =>
    `| ${row.seconds} s | ${row.rssMb.toFixed(0)} MB | ${row.dataMb.toFixed(0)} MB | ${row.cpuPercent.toFixed(0)}% | ${row.learning} of ${row.projects} | ${row.runs} | ${row.futureRuns} |`,
);
const growth =
  rows.length > 1 && first
    ? `From ${first.seconds} s to ${rows.at(-1)?.seconds} s RSS grew ${(100 * ((rows.at(-1)?.rssMb ?? 0) / first.rssMb - 1)).toFixed(0)}% and data ${(100 * ((rows.at(-1)?.dataMb ?? 0) / first.dataMb - 1)).toFixed(0)}% (goal ≤ 20%).`
    : 'Run with `--at 150,1800` for the 30-minute growth figure (goal: ≤ 20% above the 150-s figures).';
const mbText = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const peakSample = peak as Sample | null;
const peakText = peakSample
  ? `Peak of the tree's RSS, sampled every second up to the last checkpoint: ${mbText(peakSample.rssBytes)} at ${peakSample.seconds.toFixed(0)} s (the command started first, then its children: ${peakSample.processes
      .map(
        (entry) =>
          `pid ${entry.pid}: ${mbText(entry.rssBytes)}, ${mbText(entry.anonymousBytes)} anonymous, ${entry.threads} threads`,
      )
      .join('; ')}).`
  : 'Peak: no sample.';
const section = [
  '## Dashboard demo: `setpoint demo`',
  '',
  `Command: \`npm run bench:demo -- --at ${checkpoints.join(',')}\``,
  `${machineLine()} Shared with other work: load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end.`,
  `\`setpoint demo\` at --speed 1 (each job runs once a minute, staggered, its history back-filled over the 7 days before now, so runs stop when it reaches today after about 14 minutes; the event log of each job's newest run kept, and each terminated cluster's task-level detail dropped from the emulator two simulated days after its logs were delivered), started as a user would; the sign-in link was printed after ${(readyMs / 1000).toFixed(1)} s. RSS sums the whole process tree; data is the data directory on disk; CPU is the tree's share of one core since the previous checkpoint.`,
  '',
  '| at | RSS | data | CPU | learning | runs | runs dated after now |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...table,
  '',
  peakText,
  '',
  `Goals at 150 s: RSS ≤ 600 MB, data ≤ 300 MB, at least one project learning, no run after now, the sign-in link answers (first use ${signIn.first}, a redirect into the dashboard; second use ${signIn.second}: it works once). ${growth} Ctrl+C: exit code ${exitCode}${/destroyed|round failed/.test(stderr) ? ', with errors on stderr' : ', nothing on stderr but progress lines'}.`,
  '',
].join('\n');
process.stdout.write(section);
writeBenchmarkSection('## Dashboard demo: `setpoint demo`', section);
