import { ValidationError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../eventlog/run-profile.js';

/** No Spark application Setpoint can see ran before this (Spark 1.0 shipped in 2014). */
export const earliestPlausibleMs = Date.UTC(2010, 0, 1);
/** A clock a little ahead of the server's is tolerated (`runClockToleranceHours`); a run dated later has a wrong clock. */
export const defaultClockToleranceMs = 24 * 3_600_000;
/** A recurring batch run that spans more than this is not one Setpoint can cost or learn from. */
export const longestPlausibleRunMs = 31 * 24 * 3_600_000;

const iso = (ms: number) =>
  Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms);

/** Every time a profile (and the platform's description of the run) holds, with what it is. */
function timesOf(profile: RunProfile, described: { startedAt: number | null; endedAt: number | null }) {
  const times: Array<[string, number | null]> = [
    ['the application start', profile.application.startTime],
    ['the application end', profile.application.endTime],
    ["the run's start", described.startedAt],
    ["the run's end", described.endedAt],
  ];
  for (const executor of profile.executors.timeline) {
    times.push([`executor ${executor.id} added`, executor.addedTime]);
    times.push([`executor ${executor.id} removed`, executor.removedTime]);
  }
  for (const job of profile.jobs) {
    times.push([`job ${job.jobId} submitted`, job.submissionTime]);
    times.push([`job ${job.jobId} completed`, job.completionTime]);
  }
  for (const stage of profile.stages) {
    times.push([`stage ${stage.stageId} submitted`, stage.submissionTime]);
    times.push([`stage ${stage.stageId} completed`, stage.completionTime]);
  }
  return times.filter((entry): entry is [string, number] => entry[1] !== null);
}

/**
 * Refuses a run whose times cannot be real (issue 40: a log dated 2150 was costed $588,118 for one run;
 * runs at epoch 0 and at −5 ms reached DONE with 0-minute runtimes and fed the model): every time must
 * fall between 2010 and a day (`toleranceMs`) past `now`, the application must end after it starts, and
 * the application and the run may last at most 31 days. A refused run fails with this message; nothing of it is costed or learned.
 */
export function assertPlausibleTimes(
  profile: RunProfile,
  described: { startedAt: number | null; endedAt: number | null },
  options: { now?: number; toleranceMs?: number | undefined } = {},
): void {
  const now = options.now ?? Date.now();
  const latest = now + (options.toleranceMs ?? defaultClockToleranceMs);
  const times = timesOf(profile, described);
  const refuse = (why: string) => {
    throw new ValidationError('RUN_TIMES_IMPLAUSIBLE', `the run's times are not plausible: ${why}`);
  };
  for (const [what, ms] of times) {
    if (ms < earliestPlausibleMs) refuse(`${what} is ${iso(ms)}, before ${iso(earliestPlausibleMs)}`);
    if (ms > latest) refuse(`${what} is ${iso(ms)}, after the server's clock (${iso(now)})`);
  }
  const { startTime, endTime } = profile.application;
  if (startTime !== null && endTime !== null && endTime <= startTime) {
    refuse(
      `the application ends (${iso(endTime)}) ${endTime === startTime ? 'when' : 'before'} it starts (${iso(startTime)})`,
    );
  }
  // the spans a run is priced over; an executor's or a job's own times may lie outside them (logs put
  // together from several runs, a skewed executor clock), and pricing clips them to the application
  const spans: Array<[string, number | null, number | null]> = [
    ['the application', startTime, endTime],
    ['the run', described.startedAt, described.endedAt],
  ];
  for (const [what, start, end] of spans) {
    if (start !== null && end !== null && end - start > longestPlausibleRunMs)
      refuse(
        `${what} lasts ${Math.round((end - start) / 86_400_000)} days (${iso(start)} to ${iso(end)}), more than the 31 days of any batch run`,
      );
  }
}
