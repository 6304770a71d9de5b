import pg from 'pg';
import PgBoss from 'pg-boss';
import {
  type JobAttempt,
  type JobContext,
  type JobHandlers,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  PermanentJobError,
  type RetryPolicy,
  type WorkerOptions,
} from './job-queue.js';

/** Any fixed 64-bit key: the advisory lock under which queues are created. */
const queueSetupLockKey = 0x5e7_0017;

/** A lost PostgreSQL connection: server shutdown or termination (57P*), connection exceptions (08*), sockets. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (/^57P0[1-3]$/.test(code) || code.startsWith('08'))) return true;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE') return true;
  return /Connection terminated/i.test(error.message);
}

/**
 * pg-boss settles a finished job (complete or fail) without awaiting it: when the connection drops at that
 * moment the rejection is unhandled and Node ends the process. Such a loss is harmless (the job's lease
 * lapses and it runs again, fenced), so it is logged and absorbed; any other unhandled rejection still
 * ends the process as before.
 */
let connectionLossGuardInstalled = false;
function absorbUnsettledConnectionLoss(onLoss: (message: string) => void): void {
  if (connectionLossGuardInstalled) return;
  connectionLossGuardInstalled = true;
  process.on('unhandledRejection', (reason) => {
    if (isConnectionLoss(reason)) {
      onLoss(reason instanceof Error ? reason.message : String(reason));
      return;
    }
    throw reason;
  });
}

/** pg-boss queue names allow only [A-Za-z0-9_-]. */
const queueName = (kind: string) => `setpoint_${kind.replace(/[.-]/g, '_')}`;

/**
 * The scale-out queue: pg-boss on the PostgreSQL database. Leases are pg-boss expirations (a job
 * active longer than `leaseSeconds` is failed by maintenance and retried with backoff and jitter),
 * so a killed worker's job is picked up by another.
 */
export class PgBossJobQueue implements JobQueue {
  readonly name = 'pg-boss' as const;
  readonly #boss: PgBoss;
  #started: Promise<void> | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly policy: RetryPolicy,
    /** Every kind this deployment queues (the core's and each registered platform's). */
    private readonly kinds: readonly JobKind[],
    maintenanceIntervalSeconds = Math.max(1, Math.min(60, Math.ceil(policy.leaseSeconds / 2))),
    /** Workers give up on the queue once its database has been unreachable this long. */
    private readonly lossLimitSeconds = 60,
  ) {
    this.#boss = new PgBoss({
      connectionString: databaseUrl,
      schema: 'pgboss',
      max: 4,
      maintenanceIntervalSeconds,
      monitorStateIntervalSeconds: 30,
    });
    this.#boss.on('error', (error: unknown) => {
      this.#lastError = error instanceof Error ? error.message : String(error);
    });
    this.#boss.on('stopped', () => {
      if (!this.#stopping) this.#lost?.('the pg-boss queue stopped by itself');
    });
  }

  #lastError = '';
  #stopping = false;
  #lost: ((reason: string) => void) | undefined;
  #watchdog: NodeJS.Timeout | undefined;

  /**
   * Probes the queue's tables every few seconds; once no probe has succeeded for `lossLimitSeconds`
   * (refused, failing or hanging: the check does not wait for the probe), the queue counts as lost.
   * pg-boss itself retries a lost connection forever, so without this a worker would idle silently.
   */
  #watch(onQueueLost: (reason: string) => void): void {
    let reported = false;
    this.#lost = (reason) => {
      if (reported) return;
      reported = true;
      clearInterval(this.#watchdog);
      onQueueLost(reason);
    };
    let lastReachable = Date.now();
    let probing = false;
    const probeQueue = queueName(this.kinds[0] as JobKind);
    const check = () => {
      const silentSeconds = (Date.now() - lastReachable) / 1000;
      if (silentSeconds > this.lossLimitSeconds) {
        this.#lost?.(
          `the queue database has been unreachable for ${Math.round(silentSeconds)} s` +
            (this.#lastError ? ` (last error: ${this.#lastError})` : ''),
        );
        return;
      }
      if (probing) return;
      probing = true;
      this.#boss
        .getQueueSize(probeQueue)
        .then(() => {
          lastReachable = Date.now();
        })
        .catch((error: unknown) => {
          this.#lastError = error instanceof Error ? error.message : String(error);
        })
        .finally(() => {
          probing = false;
        });
    };
    this.#watchdog = setInterval(check, Math.max(250, Math.min(5000, (this.lossLimitSeconds * 1000) / 4)));
    this.#watchdog.unref();
  }

  /**
   * Creates the pg-boss schema and queues once per process. Processes starting together on a fresh
   * database (an API and its workers) take turns under one advisory lock: concurrent createQueue
   * calls deadlock in PostgreSQL and left a worker idle for good.
   */
  start(): Promise<void> {
    this.#started ??= (async () => {
      await this.#boss.start();
      const lock = new pg.Client({ connectionString: this.databaseUrl });
      await lock.connect();
      try {
        await lock.query('select pg_advisory_lock($1)', [queueSetupLockKey]);
        await this.#createQueues();
      } finally {
        await lock.end();
      }
    })();
    return this.#started;
  }

  async #createQueues(): Promise<void> {
    for (const kind of this.kinds) {
      const name = queueName(kind);
      const options = {
        name,
        retryLimit: this.policy.maxAttempts - 1,
        retryDelay: Math.max(1, Math.round(this.policy.retryDelaySeconds)),
        retryBackoff: true,
        expireInSeconds: this.policy.leaseSeconds,
      };
      if (await this.#boss.getQueue(name)) await this.#boss.updateQueue(name, options);
      else await this.#boss.createQueue(name, options);
    }
  }

  async enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
    options: { idempotencyKey?: string } = {},
  ) {
    await this.start();
    await this.#boss.send(
      queueName(kind),
      payload,
      options.idempotencyKey ? { singletonKey: options.idempotencyKey } : {},
    );
  }

  async startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    await this.start();
    if (options.onQueueLost) this.#watch(options.onQueueLost);
    absorbUnsettledConnectionLoss((message) => {
      this.#lastError = message;
      options.onConnectionLost?.(message);
    });
    for (const kind of this.kinds) {
      const handler = handlers[kind] as
        | ((payload: unknown, context: JobContext) => Promise<void>)
        | undefined;
      // Kinds this worker cannot run stay queued for a worker that can.
      if (!handler) continue;
      for (let slot = 0; slot < options.concurrency; slot += 1) {
        await this.#boss.work<unknown>(
          queueName(kind),
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: 0.5 },
          async ([job]) => {
            if (!job) return;
            const startedAt = Date.now();
            const attempt = job.retryCount + 1;
            const attempted = (outcome: JobAttempt['outcome']) =>
              options.onAttempt?.({
                kind,
                payload: job.data,
                outcome,
                readyAt: (job.startAfter ?? job.createdOn).getTime(),
                startedAt,
                finishedAt: Date.now(),
              });
            try {
              await handler(job.data, { jobId: job.id, attempt });
              attempted('done');
            } catch (error) {
              const message = error instanceof Error ? error.message : String(error);
              const permanent = error instanceof PermanentJobError;
              if (permanent || job.retryCount >= job.retryLimit) {
                await options.onParked({
                  queue: 'pg-boss',
                  jobId: job.id,
                  kind,
                  payload: job.data,
                  error: message,
                  attempts: attempt,
                });
                attempted('parked');
                if (permanent) return;
              } else {
                attempted('retry');
              }
              throw error;
            }
          },
        );
      }
    }
  }

  async depth() {
    await this.start();
    const rows: Array<{ kind: string; state: 'queued' | 'running'; count: number }> = [];
    for (const kind of this.kinds) {
      const queued = await this.#boss.getQueueSize(queueName(kind));
      const notFinished = await this.#boss.getQueueSize(queueName(kind), { before: 'completed' });
      rows.push(
        { kind, state: 'queued', count: queued },
        { kind, state: 'running', count: notFinished - queued },
      );
    }
    return rows;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#watchdog);
    if (!this.#started) return;
    await this.#started.catch(() => undefined);
    await this.#boss.stop({ graceful: true, wait: true, timeout: 30_000 });
  }
}
