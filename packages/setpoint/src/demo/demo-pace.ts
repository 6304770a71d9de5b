import { setMaxListeners } from 'node:events';
import type { ClosedLoop } from './closed-loop-driver.js';

/** How the interactive demo spaces runs so a person can follow learning, then optimizing. */
export interface DemoPace {
  /** Real ms between two runs of one job (jobs are staggered across this interval). */
  runEveryMs: number;
  /** Simulated ms per real ms in the emulated workspace: each job runs every 12 simulated hours. */
  clockSpeed: number;
  /** Simulated epoch ms of the first run: `days` before the newest run may start. */
  startTimeMs: number;
  /** Real ms from the start until the emulated history reaches today and runs stop. */
  catchUpMs: number;
}

const simulatedGapMs = 12 * 3_600_000;
/** A run is started only if it can end before now, so no run is ever dated in the future. */
export const longestRunMs = 6 * 3_600_000;

/** Back-filled history at the default pace: two runs a day for a week, about fourteen minutes of runs. */
export const defaultBackfillDays = 7;

/**
 * At speed 1 each job runs once a minute, so a job stays in learning for about four minutes. The
 * history is back-filled over the `days` before now: the first runs are dated `days` ago, and the
 * emulated clock overtakes the real one by 12 hours a minute until the newest run would end at the
 * latest now. A short window keeps every project's newest run recent at any moment the dashboard is
 * opened (never "dormant", and inside "the last 30 days").
 */
export function demoPace(speed: number, days = defaultBackfillDays, now = Date.now()): DemoPace {
  const runEveryMs = 60_000 / speed;
  const clockSpeed = simulatedGapMs / runEveryMs;
  const startTimeMs = now - days * 86_400_000 - longestRunMs;
  return { runEveryMs, clockSpeed, startTimeMs, catchUpMs: (days * 86_400_000) / (clockSpeed - 1) };
}

export type PacedLoop = Pick<ClosedLoop, 'jobs' | 'runJob' | 'setSlaFromFirstRun' | 'workspaceNow'>;

function sleepUntil(atMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, atMs - Date.now()));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs every job on its own schedule (one run per `runEveryMs`, the jobs staggered) until `signal`
 * aborts or the emulated history reaches today. Resolves once no run is in flight, so the caller can
 * close the database safely.
 */
export async function runPaced(
  loop: PacedLoop,
  pace: Pick<DemoPace, 'runEveryMs'>,
  options: { signal: AbortSignal; log: (line: string) => void; now?: () => number },
): Promise<'stopped' | 'caught-up'> {
  const now = options.now ?? Date.now;
  const started = now();
  // Every job waits on the one signal (its sleep, its run): one listener each is expected, not a leak.
  setMaxListeners(Math.max(10, 2 * loop.jobs.length + 2), options.signal);
  let caughtUp = false;
  await Promise.all(
    loop.jobs.map(async (job, index) => {
      let next = started + (index * pace.runEveryMs) / loop.jobs.length;
      for (let runs = 0; !options.signal.aborted; runs += 1) {
        await sleepUntil(next, options.signal);
        if (options.signal.aborted) return;
        if (loop.workspaceNow() + longestRunMs > now()) {
          caughtUp = true;
          return;
        }
        try {
          await loop.runJob(job, options.signal);
          if (runs === 0) await loop.setSlaFromFirstRun(job);
        } catch (error) {
          if (options.signal.aborted) return;
          options.log(`run of ${job.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        next = Math.max(next + pace.runEveryMs, now());
      }
    }),
  );
  if (caughtUp && !options.signal.aborted) {
    options.log(
      'The emulated history has reached today: no more runs. The dashboard stays up; Ctrl+C to stop.',
    );
    return 'caught-up';
  }
  return 'stopped';
}
