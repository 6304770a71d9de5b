/**
 * What keeps the dashboard demo's storage flat however long it runs: the same event-log retention
 * production has, set to each project's newest run, applied every few seconds. The data directory is at
 * its full size once every job has run once; afterwards only the runs' own rows grow.
 */
export const demoStorageEnv = {
  SETPOINT_EVENTLOG_RETENTION_RUNS: '1',
  SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS: '15',
} as const;
