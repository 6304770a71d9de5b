import { z } from 'zod';

const booleanFlag = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

/** Every setting Setpoint reads, from env, a config file or flags: one schema, parsed once at start. */
export const configSchema = z
  .object({
    /** Where the embedded SQLite database, blobs and keys live. */
    dataDir: z.string().min(1).default('.setpoint'),
    /** `postgres://…` switches storage and queue to PostgreSQL; empty means SQLite under dataDir. */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    host: z.string().default('127.0.0.1'),
    /** A request (headers and body) must be received within this time; uploads of large logs need minutes. */
    requestTimeoutSeconds: z.coerce.number().int().min(1).default(600),
    /** An idle connection is closed after this long (between requests; never while one is handled). */
    idleTimeoutSeconds: z.coerce.number().int().min(1).default(60),
    /**
     * Every request is answered within this long of arriving (at least `requestTimeoutSeconds`): past it,
     * `503 REQUEST_TIMEOUT` instead of a dropped connection.
     */
    responseTimeoutSeconds: z.coerce.number().int().min(1).default(900),
    /** Mark the session cookies Secure (set it when Setpoint is reached over HTTPS, e.g. behind TLS). */
    secureCookies: booleanFlag.default(false),
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Master keys for workspace secrets: `base64` (one key) or `id:base64,id:base64` (first encrypts,
     * all decrypt — rotation). Generated into dataDir/master.key when absent.
     */
    masterKey: z.string().optional(),
    /** Base64 secret (≥ 32 bytes) that API-key hashes and access tokens are keyed with; generated into dataDir when absent. */
    serverSecret: z.string().optional(),
    corsOrigins: z.array(z.string()).default([]),
    maxUploadBytes: z.coerce
      .number()
      .int()
      .positive()
      .default(2 * 1024 ** 3),
    /** Event-log files one upload may hold (file parts and zip entries together). */
    maxUploadFiles: z.coerce.number().int().min(1).max(10_000).default(64),
    /**
     * Decompressed bytes of one run's event log, all parts together (gzip/zstd/lz4 bombs): the
     * parse stops there with EVENTLOG_TOO_LARGE and the run fails visibly.
     */
    maxDecompressedBytes: z.coerce
      .number()
      .int()
      .positive()
      .default(16 * 1024 ** 3),
    /** `s3://bucket/prefix` stores event logs in an S3-compatible bucket; absent means dataDir/blobs. */
    blobStoreUrl: z
      .string()
      .regex(/^s3:\/\/[^/]+/, 'must be an s3://bucket[/prefix] URL')
      .optional(),
    /** Endpoint of an S3-compatible store (MinIO, R2…); default `https://s3.<region>.amazonaws.com`. */
    s3Endpoint: z.string().url().optional(),
    s3Region: z.string().default('us-east-1'),
    s3AccessKeyId: z.string().optional(),
    s3SecretAccessKey: z.string().optional(),
    /** An S3 request whose socket is silent this long (no answer, a body that stopped) fails and is retried. */
    s3IdleTimeoutSeconds: z.coerce.number().positive().default(60),
    /**
     * Hosts and networks Setpoint may call although they are not public (an S3-compatible store on a
     * private network, a Databricks emulator on 127.0.0.1): addresses, CIDRs and host names, comma or
     * space separated (`10.0.0.0/8, minio.internal`). Everything else on loopback, private, link-local,
     * CGNAT or NAT64 addresses is refused for workspace hosts, S3 endpoints and event-log URIs.
     */
    outboundAllowList: z.string().default(''),
    accessTokenTtlSeconds: z.coerce.number().int().positive().default(3600),
    /**
     * Proxies in front of Setpoint whose X-Forwarded-For is believed: empty (none), a hop count
     * (`1` behind one nginx or ALB) or proxy addresses and CIDRs (`10.0.0.0/8`).
     */
    trustProxy: z.string().default(''),
    /** Webhook deliveries per minute per workspace (counted after their Basic auth). */
    webhookRateLimitPerMinute: z.coerce.number().int().positive().default(600),
    /** Requests per minute per API key (per address before authentication). */
    rateLimitPerMinute: z.coerce.number().int().positive().default(600),
    /** `/metrics` without a bearer token, for a Prometheus scraper on a trusted network. */
    metricsPublic: booleanFlag.default(false),
    workerConcurrency: z.coerce.number().int().positive().max(64).default(2),
    /** How long a worker owns a job before another may take it over (crash recovery). */
    jobLeaseSeconds: z.coerce.number().int().min(1).default(300),
    /**
     * How many of a project's newest analyzed runs a recommendation learns from (and each project adds to
     * the fleet prior): bounds a recommendation's reads and model size however long the history grows.
     */
    recommendationWindowRuns: z.coerce.number().int().min(2).max(5000).default(120),
    /**
     * How far past the server's clock a run's times may be before the run is refused as implausible
     * (service/runs/plausible-times.ts); an emulated workspace whose clock runs faster sets it higher.
     */
    runClockToleranceHours: z.coerce.number().positive().default(24),
    /**
     * A worker whose queue database stays unreachable this long (PostgreSQL) exits non-zero, saying why,
     * so its supervisor restarts it.
     */
    workerQueueLossSeconds: z.coerce.number().min(1).default(60),
    jobMaxAttempts: z.coerce.number().int().min(1).default(5),
    /** First retry delay; later retries double it, with jitter. */
    jobRetryDelaySeconds: z.coerce.number().min(0).default(5),
    /** URL Databricks reaches this server at (webhook destinations); default http://host:port. */
    publicUrl: z.string().url().optional(),
    /** Pause between the two listings that show a delivered event log stopped growing. */
    logCompletenessPollMs: z.coerce.number().int().min(0).default(15_000),
    /** Collection attempts after which an incomplete event log is taken as it is, marked INCOMPLETE. */
    logMaxIncompleteAttempts: z.coerce.number().int().min(1).default(4),
    /** A run on a newly applied configuration slower than this × its SLA is reverted. */
    slaRevertFactor: z.coerce.number().min(1).default(1.5),
    maxAutoChangesPerWeek: z.coerce.number().int().min(1).default(20),
    /** Seconds between sweeps for orphaned event logs and scratch files; 0 disables. */
    orphanSweepIntervalSeconds: z.coerce.number().int().min(0).default(3600),
    /** An unreferenced bundle or scratch entry must be this old before the sweep removes it. */
    orphanMinAgeSeconds: z.coerce
      .number()
      .int()
      .min(0)
      .default(6 * 3600),
    /** Seconds between polls for runs a lost webhook did not announce; 0 disables. */
    reconcileIntervalSeconds: z.coerce.number().int().min(0).default(300),
    /**
     * How far before a job's newest seen run the reconciliation looks for runs whose webhooks were lost
     * (a later run's arrival must not hide them); each pass lists this much of every onboarded job's runs.
     */
    reconcileLookbackHours: z.coerce.number().min(0).default(24),
    /**
     * Event logs of processed runs are deleted from the blob store after this many days (their profile,
     * cost and model stay); 0 keeps them forever.
     */
    eventLogRetentionDays: z.coerce.number().min(0).default(90),
    /** Besides the age limit, keep only the event logs of each project's newest N runs; 0 means no count limit. */
    eventLogRetentionRuns: z.coerce.number().int().min(0).default(0),
    /** Seconds between retention passes over the blob store. */
    eventLogPruneIntervalSeconds: z.coerce.number().int().min(1).default(3600),
    /** Seconds between evaluations of the alert rules. */
    alertIntervalSeconds: z.coerce.number().int().min(1).default(60),
    /** Seconds before a failed alert delivery is tried again; the wait doubles each time (at most an hour). */
    alertRetryBaseSeconds: z.coerce.number().int().min(1).max(3600).default(60),
  })
  .strict();

export type SetpointConfig = z.infer<typeof configSchema>;
