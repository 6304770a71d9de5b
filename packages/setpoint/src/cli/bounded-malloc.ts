import { spawn } from 'node:child_process';
import { stopWithParentVariable } from '../server/stop-with-parent.js';

/** glibc's variable: how many malloc arenas the process may create (default 8 per core). */
export const arenaVariable = 'MALLOC_ARENA_MAX';

/**
 * glibc's tuning for the demo's child: two arenas (the main thread's and one every worker thread shares);
 * every block of 128 KiB or more in its own mapping, returned to the system when freed (by default the
 * threshold rises to the largest block freed so far, up to 32 MiB, and such blocks then stay in the
 * arenas); and free memory at an arena's top returned from 128 KiB on.
 */
export const boundedMallocEnv = {
  [arenaVariable]: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
} as const;

/**
 * Whether this invocation should run in a child with `boundedMallocEnv`: the interactive dashboard
 * demo on Linux (glibc), unless the variable is already set (the child itself, or a user's own choice).
 * `args` are the CLI's arguments after the executable and script.
 */
export function wantsBoundedMalloc(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): boolean {
  const command = args.find((arg) => !arg.startsWith('-'));
  const oneShot = ['--headless', '--help', '-h'].some((flag) => args.includes(flag));
  return platform === 'linux' && command === 'demo' && !oneShot && !env[arenaVariable];
}

/**
 * Runs this same command in a child process with `boundedMallocEnv` and answers its exit code.
 *
 * Why: the demo parses every run's event log, fits every recommendation and relearns the fleet prior on
 * short-lived worker threads, whose large buffers glibc kept in per-thread arenas after they were freed.
 * Its resident memory grew with the number of runs while the JavaScript heaps stayed flat
 * (docs/benchmarks.md, "Dashboard demo"). glibc reads these variables only when a process starts, hence
 * the child.
 *
 * The child gets its own process group, so a Ctrl+C in the terminal reaches this process only and is
 * passed on once (the child stops cleanly on the first); SIGTERM likewise. If this process dies, the
 * child sees its IPC channel close and stops too, so no demo is left running unseen.
 */
export function runWithBoundedMalloc(argv: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...argv.slice(1)], {
    env: { ...process.env, ...boundedMallocEnv, [stopWithParentVariable]: '1' },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const onInterrupt = forward('SIGINT');
  const onTerminate = forward('SIGTERM');
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  return new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
