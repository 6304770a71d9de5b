/**
 * Runs a command as its own process tree and measures what the tree used: CPU seconds (user + system
 * of the command and every child it waited for, from the shell's `times`), wall time, and peak RSS
 * (the sum over the live tree, sampled every 100 ms from /proc).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessMeasurement {
  exitCode: number;
  wallSeconds: number;
  cpuSeconds: number;
  peakRssBytes: number;
  stdout: string;
  stderr: string;
}

const sampleMs = 100;

function treeOf(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    const parent = tree[index] as number;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(' ').map(Number));
      } catch {
        // the task ended between the two reads
      }
    }
  }
  return tree;
}

function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `times` prints the shell's own times, then its children's: "0m1.234s 0m0.056s". */
function childCpuSeconds(timesOutput: string): number {
  const lines = timesOutput.trim().split('\n');
  const match = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines[lines.length - 1] ?? '');
  if (!match) return Number.NaN;
  return Number(match[1]) * 60 + Number(match[2]) + Number(match[3]) * 60 + Number(match[4]);
}

const timesMarker = '--- times ---';

export function measureProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ProcessMeasurement> {
  // The shell runs the command, waits for it, and prints the CPU of everything it waited for.
  const script = `"$@"; status=$?; echo '${timesMarker}' >&2; times >&2; exit $status`;
  const started = process.hrtime.bigint();
  const child = spawn('/bin/sh', ['-c', script, 'measure', command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  let peakRssBytes = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    // the shell itself is left out: it only waits
    const rss = treeOf(child.pid)
      .slice(1)
      .reduce((sum, pid) => sum + residentBytes(pid), 0);
    peakRssBytes = Math.max(peakRssBytes, rss);
  };
  const timer = setInterval(sample, sampleMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearInterval(timer);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const at = stderr.lastIndexOf(timesMarker);
      const cpuSeconds = at === -1 ? Number.NaN : childCpuSeconds(stderr.slice(at + timesMarker.length));
      resolve({
        exitCode: code ?? 1,
        wallSeconds,
        cpuSeconds,
        peakRssBytes,
        stdout,
        stderr: at === -1 ? stderr : stderr.slice(0, at),
      });
    });
  });
}
