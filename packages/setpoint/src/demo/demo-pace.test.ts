import { describe, expect, it } from 'vitest';
import { demoPace, longestRunMs, type PacedLoop, runPaced } from './demo-pace.js';

function fakeLoop(jobCount: number, workspaceNow: () => number) {
  const started: { job: string; at: number }[] = [];
  const slaSet: string[] = [];
  let inFlight = 0;
  let finishRun: () => void = () => {};
  const loop: PacedLoop = {
    jobs: Array.from({ length: jobCount }, (_, index) => ({
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
  it('runs each job once a minute at speed 1, twelve simulated hours apart, and reaches today after `hours`', () => {
    const now = 1_800_000_000_000;
    const pace = demoPace(1, 2, now);

    expect(pace.runEveryMs).toBe(60_000);
    expect(pace.runEveryMs * pace.clockSpeed).toBe(12 * 3_600_000);
    const simulatedAfterTwoHours = pace.startTimeMs + 2 * 3_600_000 * pace.clockSpeed;
    expect(simulatedAfterTwoHours).toBe(now + 2 * 3_600_000);
    expect(demoPace(4, 2, now).runEveryMs).toBe(15_000);
  });

  it('staggers the jobs, sets each SLA after its first run, and repeats on schedule', async () => {
    const fake = fakeLoop(4, () => 0);
    const stopper = new AbortController();
    const done = runPaced(fake.loop, { runEveryMs: 80 }, { signal: stopper.signal, log: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 250));
    stopper.abort();

    expect(await done).toBe('stopped');
    const firstRuns = fake.loop.jobs.map((job) => fake.started.find((run) => run.job === job.name)?.at ?? 0);
    expect(firstRuns).toEqual([...firstRuns].sort((a, b) => a - b));
    expect((firstRuns[3] ?? 0) - (firstRuns[0] ?? 0)).toBeGreaterThanOrEqual(50);
    expect(fake.slaSet.sort()).toEqual(['job 0', 'job 1', 'job 2', 'job 3']);
    expect(fake.started.filter((run) => run.job === 'job 0').length).toBeGreaterThanOrEqual(3);
    expect(fake.inFlight()).toBe(0);
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
