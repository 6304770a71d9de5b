/**
 * How a closed-loop round delivers its runs to Setpoint. `burst`: every job's run starts at the round's
 * instant, so their webhooks arrive together and each run waits for the others' steps on the workers — a
 * daily schedule's burst. `one-at-a-time`: a job's run starts only once the previous run is digested (its
 * recommendation stored, the queue empty), so each run meets an idle service — a run alone.
 */
export type RoundDelivery = 'burst' | 'one-at-a-time';

export const roundDeliveries = ['burst', 'one-at-a-time'] as const satisfies readonly RoundDelivery[];

export interface RoundSteps<Job> {
  /** Starts the job's run; resolves with the platform's run id. */
  start(job: Job): Promise<string>;
  /** Lets the platform finish the started runs (moves a clock the rounds drive past their ends). */
  finish(runIds: readonly string[]): Promise<void>;
  /** Resolves once Setpoint has digested the run: recommendation stored, nothing left in the queue. */
  digested(job: Job, runId: string): Promise<void>;
}

/** Runs every job once in `jobs`' order (the workspace names its clusters in that order either way). */
export async function deliverRound<Job>(
  jobs: readonly Job[],
  delivery: RoundDelivery,
  steps: RoundSteps<Job>,
): Promise<void> {
  if (delivery === 'one-at-a-time') {
    for (const job of jobs) {
      const runId = await steps.start(job);
      await steps.finish([runId]);
      await steps.digested(job, runId);
    }
    return;
  }
  const started: Array<{ job: Job; runId: string }> = [];
  for (const job of jobs) started.push({ job, runId: await steps.start(job) });
  await steps.finish(started.map(({ runId }) => runId));
  for (const { job, runId } of started) await steps.digested(job, runId);
}
