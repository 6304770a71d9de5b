import { ConfigError } from '@setpoint/foundation/errors';
import { configSchema, type SetpointConfig } from './schema.js';

const envNames = {
  dataDir: 'SETPOINT_DATA_DIR',
  databaseUrl: 'SETPOINT_DATABASE_URL',
  host: 'SETPOINT_HOST',
  port: 'SETPOINT_PORT',
  requestTimeoutSeconds: 'SETPOINT_REQUEST_TIMEOUT_SECONDS',
  idleTimeoutSeconds: 'SETPOINT_IDLE_TIMEOUT_SECONDS',
  responseTimeoutSeconds: 'SETPOINT_RESPONSE_TIMEOUT_SECONDS',
  secureCookies: 'SETPOINT_SECURE_COOKIES',
  logLevel: 'SETPOINT_LOG_LEVEL',
  masterKey: 'SETPOINT_MASTER_KEY',
  maxUploadBytes: 'SETPOINT_MAX_UPLOAD_BYTES',
  maxUploadFiles: 'SETPOINT_MAX_UPLOAD_FILES',
  maxDecompressedBytes: 'SETPOINT_MAX_DECOMPRESSED_BYTES',
  serverSecret: 'SETPOINT_SERVER_SECRET',
  blobStoreUrl: 'SETPOINT_BLOB_STORE_URL',
  s3Endpoint: 'SETPOINT_S3_ENDPOINT',
  s3Region: 'AWS_REGION',
  s3AccessKeyId: 'AWS_ACCESS_KEY_ID',
  s3SecretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  s3IdleTimeoutSeconds: 'SETPOINT_S3_IDLE_TIMEOUT_SECONDS',
  outboundAllowList: 'SETPOINT_OUTBOUND_ALLOW_LIST',
  accessTokenTtlSeconds: 'SETPOINT_ACCESS_TOKEN_TTL_SECONDS',
  rateLimitPerMinute: 'SETPOINT_RATE_LIMIT_PER_MINUTE',
  trustProxy: 'SETPOINT_TRUST_PROXY',
  webhookRateLimitPerMinute: 'SETPOINT_WEBHOOK_RATE_LIMIT_PER_MINUTE',
  metricsPublic: 'SETPOINT_METRICS_PUBLIC',
  workerConcurrency: 'SETPOINT_WORKER_CONCURRENCY',
  jobLeaseSeconds: 'SETPOINT_JOB_LEASE_SECONDS',
  jobMaxAttempts: 'SETPOINT_JOB_MAX_ATTEMPTS',
  workerQueueLossSeconds: 'SETPOINT_WORKER_QUEUE_LOSS_SECONDS',
  recommendationWindowRuns: 'SETPOINT_RECOMMENDATION_WINDOW_RUNS',
  runClockToleranceHours: 'SETPOINT_RUN_CLOCK_TOLERANCE_HOURS',
  jobRetryDelaySeconds: 'SETPOINT_JOB_RETRY_DELAY_SECONDS',
  publicUrl: 'SETPOINT_PUBLIC_URL',
  logCompletenessPollMs: 'SETPOINT_LOG_COMPLETENESS_POLL_MS',
  logMaxIncompleteAttempts: 'SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS',
  slaRevertFactor: 'SETPOINT_SLA_REVERT_FACTOR',
  maxAutoChangesPerWeek: 'SETPOINT_MAX_AUTO_CHANGES_PER_WEEK',
  reconcileIntervalSeconds: 'SETPOINT_RECONCILE_INTERVAL_SECONDS',
  reconcileLookbackHours: 'SETPOINT_RECONCILE_LOOKBACK_HOURS',
  eventLogRetentionDays: 'SETPOINT_EVENTLOG_RETENTION_DAYS',
  eventLogRetentionRuns: 'SETPOINT_EVENTLOG_RETENTION_RUNS',
  eventLogPruneIntervalSeconds: 'SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS',
  alertIntervalSeconds: 'SETPOINT_ALERT_INTERVAL_SECONDS',
  alertRetryBaseSeconds: 'SETPOINT_ALERT_RETRY_BASE_SECONDS',
  orphanSweepIntervalSeconds: 'SETPOINT_ORPHAN_SWEEP_INTERVAL_SECONDS',
  orphanMinAgeSeconds: 'SETPOINT_ORPHAN_MIN_AGE_SECONDS',
} as const satisfies Partial<Record<keyof SetpointConfig, string>>;

/** Flags win over env, env wins over defaults. */
export function loadConfig(
  flags: Partial<Record<keyof SetpointConfig, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): SetpointConfig {
  const fromEnv: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(envNames)) {
    const value = env[name];
    if (value !== undefined && value !== '') fromEnv[key] = value;
  }
  const corsOrigins = env.SETPOINT_CORS_ORIGINS;
  if (corsOrigins) fromEnv.corsOrigins = corsOrigins.split(',').map((origin) => origin.trim());
  const definedFlags = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  const parsed = configSchema.safeParse({ ...fromEnv, ...definedFlags });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`,
    );
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
