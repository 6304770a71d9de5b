/**
 * A run as a person knows it in an explanation: by when it started ("the run of 2026-12-06 02:11 UTC"),
 * never by its id (a Databricks run id, or the hash of an uploaded event log), which the API carries.
 * An explanation is stored text read anywhere, so the time is UTC, to the minute.
 */
export function runName(run: { startedAt: number | null; endedAt: number | null }): string {
  const at = run.startedAt ?? run.endedAt;
  if (at === null || !Number.isFinite(at)) return 'the run';
  return `the run of ${utcMinute(at)}`;
}

/** A moment in stored text read anywhere: "2026-12-06 02:11 UTC" (UTC, to the minute). */
export function utcMinute(at: number): string {
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
