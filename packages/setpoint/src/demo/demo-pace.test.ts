import { dormant, type InsightRun } from '@setpoint/insights';
import { describe, expect, it, vi } from 'vitest';
import { defaultBackfillDays, demoPace, longestRunMs, type PacedLoop, runPaced } from './demo-pace.js';

const dayMs = 86_400_000;

function fakeLoop(jobCount: number, workspaceNow: () => number) {
  const started: { job: string; at: number }[] = [];
  const slaSet: string[] = [];
  let inFlight = 0;
  let finishRun: () => void = () => {};
  const loop: PacedLoop = {
    jobs: Array.from({ length: jobCount }, (_, index) => ({
      platform: 'databricks' as const,
      jobId: `${index}`,
      name: `job ${index}`,
      projectIds: [],
    })),
    async runJob(job) {
      started.push({ job: job.name, at: Date.now() });
      inFlight += 1;
      await new Promise<void>((resolve) => {
        finishRun = resolve;
        setTimeout(resolve, 5);
      });
      inFlight -= 1;
    },
    async setSlaFromFirstRun(job) {
      slaSet.push(job.name);
    },
    workspaceNow,
  };
  return { loop, started, slaSet, inFlight: () => inFlight, finishRun: () => finishRun() };
}

describe('the demo pace', () => {
  it('runs each job once a minute at speed 1, twelve simulated hours apart, and reaches today after the back-fill', () => {
    const now = 1_800_000_000_000;
    const pace = demoPace(1, 7, now);

    expect(pace.runEveryMs).toBe(60_000);
    expect(pace.runEveryMs * pace.clockSpeed).toBe(12 * 3_600_000);
    const simulatedAtCatchUp = pace.startTimeMs + pace.catchUpMs * pace.clockSpeed;
    expect(simulatedAtCatchUp).toBeCloseTo(now + pace.catchUpMs - longestRunMs, -1);
    expect(pace.catchUpMs / 60_000).toBeCloseTo(14, 0);
    expect(demoPace(4, 7, now).runEveryMs).toBe(15_000);
  });

  it.each([0.5, 1, 4, 60])(
    'at speed %s with the default back-fill, every run is recent whenever the dashboard is opened, and none lies in the future',
    (speed) => {
      const now = 1_800_000_000_000;
      const pace = demoPace(speed, undefined, now);
      expect(defaultBackfillDays).toBeLessThan(14);
      // A newcomer opens the dashboard at any moment between the first run and the catch-up.
      for (let step = 0; step <= 100; step += 1) {
        const realElapsed = (pace.catchUpMs * step) / 100;
        const realNow = now + realElapsed;
        const firstRun = pace.startTimeMs;
        const newestRunStart = pace.startTimeMs + realElapsed * pace.clockSpeed;
        const runs: InsightRun[] = [firstRun, newestRunStart].map((startedAt, index) => ({
          id: `${index}`,
          startedAt,
          endedAt: startedAt + longestRunMs,
          status: 'SUCCESS',
          costUsd: 1,
          costComponents: null,
          inputBytes: null,
          configKey: null,
          recommendationId: null,
          coreUtilization: null,
          spotLosses: null,
        }));
        expect(dormant(runs, realNow)).toBeNull();
        // the whole history counts in "Spend, last 30 days"
        expect(realNow - firstRun).toBeLessThan(30 * dayMs);
        expect(newestRunStart + longestRunMs).toBeLessThanOrEqual(realNow + 1);
      }
    },
  );

  it('staggers the jobs, sets each SLA after its first run, and repeats on schedule', async () => {
    // Fake timers: the schedule is checked exactly, however busy the machine is.
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const fake = fakeLoop(4, () => 0);
      const stopper = new AbortController();
      const done = runPaced(fake.loop, { runEveryMs: 80 }, { signal: stopper.signal, log: () => {} });
      await vi.advanceTimersByTimeAsync(250);
      stopper.abort();
      await vi.runAllTimersAsync();

      expect(await done).toBe('stopped');
      const firstRuns = fake.loop.jobs.map(
        (job) => fake.started.find((run) => run.job === job.name)?.at ?? 0,
      );
      expect(firstRuns.map((at) => at - 1_800_000_000_000)).toEqual([0, 20, 40, 60]);
      expect(fake.slaSet.sort()).toEqual(['job 0', 'job 1', 'job 2', 'job 3']);
      expect(
        fake.started.filter((run) => run.job === 'job 0').map((run) => run.at - 1_800_000_000_000),
      ).toEqual([0, 80, 160, 240]);
      expect(fake.inFlight()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts no run that could end after now, and says the history has reached today', async () => {
    const lines: string[] = [];
    const fake = fakeLoop(2, () => Date.now() - longestRunMs + 1);
    const result = await runPaced(
      fake.loop,
      { runEveryMs: 10 },
      { signal: new AbortController().signal, log: (line) => lines.push(line) },
    );

    expect(result).toBe('caught-up');
    expect(fake.started).toHaveLength(0);
    expect(lines.join('\n')).toMatch(/reached today/);
  });
});
