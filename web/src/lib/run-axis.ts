const dayOf = (epochMs: number) =>
  new Date(epochMs).toLocaleDateString('en-GB', { day: '2-digit', month: 'short' });
const timeOf = (epochMs: number) =>
  new Date(epochMs).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

/**
 * The x-axis label of each run: the day on the first run of each day (above its time), the time
 * alone for the day's later runs, so several runs a day never repeat the same date.
 */
export function runAxisLabels(times: readonly number[]): string[] {
  return times.map((time, index) => {
    const previous = index === 0 ? null : times[index - 1]!;
    return previous !== null && dayOf(previous) === dayOf(time)
      ? timeOf(time)
      : `${dayOf(time)}\n${timeOf(time)}`;
  });
}
