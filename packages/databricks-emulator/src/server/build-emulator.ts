import { errorKinds, isAppError } from '@setpoint/foundation/errors';
import Fastify, { type FastifyInstance } from 'fastify';
import { EmrEngine } from '../emr/emr-engine.js';
import { registerEmrRoutes } from '../emr/emr-routes.js';
import { WorkloadRegistry } from '../workloads/workload-registry.js';
import { registerAdminRoutes } from './admin-routes.js';
import { AllPurposeClusters } from './all-purpose-clusters.js';
import { unauthenticated } from './api-errors.js';
import { refuseInvalidCluster, rememberRefusal } from './cluster-validity.js';
import { registerClustersRoutes } from './clusters-routes.js';
import { registerComputeRoutes } from './compute-routes.js';
import { registerDbfsRoutes } from './dbfs-routes.js';
import type { EmulatorContext } from './emulator-context.js';
import { EmulatorState } from './emulator-state.js';
import { FaultInjector, type FaultRuleInput } from './faults.js';
import { registerFilesRoutes } from './files-routes.js';
import { registerIdentityRoutes } from './identity-routes.js';
import { createJob, registerJobsRoutes } from './jobs-routes.js';
import { type S3DeliveryOptions, S3LogSink } from './log-delivery-s3.js';
import { MemoryS3Store, registerMemoryS3Routes } from './memory-s3.js';
import type { NodeSpecSource } from './node-specs.js';
import { registerNotificationRoutes } from './notification-routes.js';
import { OAuthIssuer, type OAuthOptions, registerOAuthRoutes } from './oauth.js';
import { RateLimiter } from './rate-limiter.js';
import type { RouteKit } from './route-kit.js';
import { RunEngine } from './run-engine.js';
import { shippedJobSettings, shippedServerlessJobSettings, type WorkspaceCloud } from './shipped-jobs.js';
import { catchUpStart, SimClock } from './sim-clock.js';
import { registerStatementRoutes, type StatementOptions } from './statements-routes.js';
import { SystemTables, type SystemTablesOptions } from './system-tables/system-tables.js';
import { VirtualFs } from './virtual-fs.js';
import { WebhookSender } from './webhooks.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

export interface EmulatorOptions {
  seed?: number;
  /** Simulated ms per real ms (default 600: a one-hour job takes six seconds). 0 freezes the clock. */
  clockSpeed?: number;
  token?: string;
  /** Simulated epoch ms at start; defaults to the real time (with `neverAheadOfRealTime`, earlier). */
  startTimeMs?: number;
  /**
   * The clock never passes the real one: it runs at `clockSpeed` until it reaches real time, then at real
   * time, so no run is dated in the future (the standalone emulator). Without `startTimeMs` it starts an
   * hour of real time back at `clockSpeed` (at most 30 days): that long, runs finish fast.
   */
  neverAheadOfRealTime?: boolean;
  faults?: FaultRuleInput[];
  /** Multiplies the published rate limits; 0 switches rate limiting off. */
  rateLimitScale?: number;
  workloads?: WorkloadRegistry;
  /** Create the shipped Job Bank jobs at start (default true). */
  preloadJobs?: boolean;
  /** Also create the Job Bank's serverless jobs (`shippedServerlessJobSettings`; default false). */
  serverlessJobs?: boolean;
  /** The workspace's cloud: the shipped jobs use its instance types (default aws). */
  cloud?: WorkspaceCloud;
  workspaceId?: string;
  /** Mirror every DBFS/Volumes file (delivered cluster logs included) below this directory. */
  stateDirectory?: string;
  /** Deliver logs of clusters with an S3 `cluster_log_conf` to this S3-compatible store. */
  s3LogDelivery?: S3DeliveryOptions;
  /**
   * Without `s3LogDelivery`: keep S3 logs in memory and serve them at `${url}/s3` (GetObject,
   * ListObjectsV2, path-style), so EMR steps' event logs are collectable with no S3 server (the demo).
   */
  memoryS3?: boolean;
  /** Instance specs list-node-types reports instead of the simulator's own table. */
  nodeSpecs?: NodeSpecSource;
  /** Service principals and token lifetime of the OAuth issuers (Databricks and Entra ID). */
  oauth?: OAuthOptions;
  /**
   * Simulated ms a terminated cluster's Spark detail (tasks, stages, jobs) is kept after its logs were
   * delivered; unset keeps it. Long-running emulators (the demo) set it to keep memory flat.
   */
  clusterDetailRetentionMs?: number;
  /** Billing lag and restatements of the system tables. */
  systemTables?: SystemTablesOptions;
  /** SQL warehouses, execution time, chunk size and grants of the Statement Execution API. */
  statements?: StatementOptions;
  /** The EMR face (`POST /` with `X-Amz-Target: ElasticMapReduce.*`): its account, region and denied actions. */
  emr?: {
    region?: string;
    accountId?: string;
    deniedActions?: readonly string[];
    /** Instance types the region does not offer (`ListSupportedInstanceTypes` leaves them out). */
    unsupportedInstanceTypes?: readonly string[];
  };
}

export interface Emulator {
  app: FastifyInstance;
  context: EmulatorContext;
  /** The emulated EMR account's clusters. */
  emr: EmrEngine;
  /** The in-memory S3 store behind `/s3`, when `memoryS3` was asked for. */
  memoryS3: MemoryS3Store | undefined;
  token: string;
  oauth: OAuthIssuer;
  systemTables: SystemTables;
  close(): Promise<void>;
}

export const defaultEmulatorToken = 'dapi-setpoint-emulator';
export const defaultClockSpeed = 600;

function sendError(
  reply: import('fastify').FastifyReply,
  status: number,
  errorCode: string,
  message: string,
) {
  return reply
    .code(status)
    .type('application/json')
    .send(JSON.stringify({ error_code: errorCode, message }));
}

/**
 * A token the workspace does not know (wrong, revoked or expired): Databricks answers 403 with a numeric
 * `error_code` and the reason phrase in a header (databricks/databricks-sdk-go#873 and #917 show the exact
 * 52-byte body), which the SDKs map by status to PermissionDenied. Only a missing credential is a 401.
 */
function refuseToken(reply: import('fastify').FastifyReply) {
  return reply
    .code(403)
    .header('x-databricks-reason-phrase', invalidAccessToken)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error_code: 403, message: invalidAccessToken }));
}

const invalidAccessToken = 'Invalid access token.';

/** Composition root of the Databricks workspace emulator. */
export async function buildEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const seed = options.seed ?? 1;
  const token = options.token ?? defaultEmulatorToken;
  const workspaceId = options.workspaceId ?? '1234567890123456';
  const state = new EmulatorState();
  const fs = new VirtualFs(options.stateDirectory);
  const speed = options.clockSpeed ?? defaultClockSpeed;
  const neverAhead = options.neverAheadOfRealTime ?? false;
  const clock = new SimClock(
    speed,
    options.startTimeMs ?? (neverAhead ? catchUpStart(speed, Date.now()) : Date.now()),
    Date.now,
    neverAhead,
  );
  const faults = new FaultInjector();
  for (const rule of options.faults ?? []) faults.add(rule);
  const webhooks = new WebhookSender(state, faults, workspaceId);
  const workloads = options.workloads ?? new WorkloadRegistry();
  const s3Delivery = options.s3LogDelivery ? new S3LogSink(options.s3LogDelivery) : undefined;
  const memoryS3 = !s3Delivery && options.memoryS3 ? new MemoryS3Store() : undefined;
  const s3Logs = s3Delivery ?? memoryS3;
  const cloud = options.cloud ?? 'aws';
  const allPurpose = new AllPurposeClusters({
    state,
    clock,
    seed,
    refuseInvalid: (endpoint, spec) =>
      refuseInvalidCluster({ state, clock, cloud, nodeSpecs: options.nodeSpecs }, endpoint, spec),
  });
  const engine = new RunEngine({
    allPurpose,
    state,
    fs,
    clock,
    faults,
    webhooks,
    workloads,
    seed,
    workspaceId,
    region: 'us-west-2',
    s3Logs,
    clusterDetailRetentionMs: options.clusterDetailRetentionMs,
  });
  const context: EmulatorContext = {
    state,
    engine,
    allPurpose,
    clock,
    fs,
    faults,
    webhooks,
    workloads,
    seed,
    nodeSpecs: options.nodeSpecs,
    cloud,
    baseUrl: { value: 'http://127.0.0.1' },
  };
  const kit: RouteKit = {
    faults,
    rateLimiter: new RateLimiter(options.rateLimitScale ?? 1),
    beforeHandler: () => engine.catchUp(),
  };

  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024, exposeHeadRoutes: false });
  app.removeContentTypeParser('application/json');
  const parseJson = (text: string, done: (error: Error | null, body?: unknown) => void) => {
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(
        Object.assign(new Error('Malformed JSON request body'), {
          statusCode: 400,
          code: 'MALFORMED_REQUEST',
        }),
        undefined,
      );
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    parseJson(typeof body === 'string' ? body : body.toString('utf8'), done),
  );

  // The REST API reads its body as JSON whatever the content type says: `curl --data '{…}'` (sent as a
  // form) is how Databricks' own examples call it. The OAuth token endpoints, outside /api/, take forms.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (request.url.startsWith('/api/')) return parseJson(text, done);
      done(null, new URLSearchParams(text));
    },
  );

  const oauth = new OAuthIssuer(options.oauth);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/') && !request.url.startsWith('/emulator/admin')) return;
    const presented = request.headers.authorization ?? '';
    const bearer = presented.startsWith('Bearer ') ? presented.slice('Bearer '.length) : '';
    // the admin API is the emulator's own: only its fixed token opens it
    // an Entra principal may also send an Azure management token; when it does, it has to be one
    const management = request.headers['x-databricks-azure-sp-management-token'];
    const accepted =
      (bearer === token || (request.url.startsWith('/api/') && bearer !== '' && oauth.accepts(bearer))) &&
      (typeof management !== 'string' || oauth.accepts(management, 'management'));
    if (accepted) return;
    if (bearer === '') {
      const error = unauthenticated();
      return sendError(reply, errorKinds[error.kind].httpStatus, error.code, error.message);
    }
    return refuseToken(reply);
  });

  app.setErrorHandler((error, _request, reply) => {
    if (isAppError(error))
      return sendError(reply, errorKinds[error.kind].httpStatus, error.code, error.message);
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(
        reply,
        status,
        'MALFORMED_REQUEST',
        error instanceof Error ? error.message : String(error),
      );
    }
    return sendError(reply, 500, 'INTERNAL_ERROR', error instanceof Error ? error.message : 'internal error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      404,
      'ENDPOINT_NOT_FOUND',
      `No API found for '${request.method} ${request.url.split('?')[0]}'`,
    ),
  );

  registerJobsRoutes(app, kit, context);
  registerClustersRoutes(app, kit, context);
  registerDbfsRoutes(app, kit, context);
  registerFilesRoutes(app, kit, context);
  registerWorkspaceRoutes(app, kit, context);
  registerComputeRoutes(app, kit, context);
  registerNotificationRoutes(app, kit, context);
  registerIdentityRoutes(app, kit, workspaceId);
  registerAdminRoutes(app, context);
  registerOAuthRoutes(app, oauth, context.baseUrl);
  const systemTables = new SystemTables(
    { state, clock, seed, workspaceId, cloud: context.cloud },
    options.systemTables,
  );
  registerStatementRoutes(app, kit, systemTables, options.statements);
  app.post('/emulator/admin/oauth/revoke', async () => ({ revoked: oauth.revokeAll() }));
  const emrRegion = options.emr?.region ?? 'us-east-1';
  const emr = new EmrEngine({
    clock,
    workloads,
    seed,
    region: emrRegion,
    accountId: options.emr?.accountId ?? '123456789012',
    s3: s3Logs,
    unsupportedInstanceTypes: options.emr?.unsupportedInstanceTypes ?? [],
  });
  registerEmrRoutes(app, emr, {
    region: emrRegion,
    deniedActions: options.emr?.deniedActions ?? [],
    faults,
    rememberRefusal: ({ rule, field, message, endpoint }) =>
      rememberRefusal(context, { atMs: clock.now(), endpoint, rule, field, message }),
  });
  if (memoryS3) registerMemoryS3Routes(app, memoryS3);

  if (options.preloadJobs ?? true)
    for (const settings of shippedJobSettings(options.cloud)) createJob(context, settings);
  if (options.serverlessJobs)
    for (const settings of shippedServerlessJobSettings()) createJob(context, settings);

  return {
    app,
    context,
    emr,
    memoryS3,
    token,
    oauth,
    systemTables,
    close: async () => {
      engine.close();
      systemTables.close();
      await app.close();
      await webhooks.settle();
      await s3Delivery?.close();
    },
  };
}

export interface RunningEmulator extends Emulator {
  host: string;
  port: number;
  url: string;
}

export async function startEmulator(
  options: EmulatorOptions & { host?: string; port?: number } = {},
): Promise<RunningEmulator> {
  const emulator = await buildEmulator(options);
  const host = options.host ?? '127.0.0.1';
  await emulator.app.listen({ host, port: options.port ?? 8089 });
  const address = emulator.app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 8089);
  const url = `http://${host}:${port}`;
  emulator.context.baseUrl.value = url;
  return { ...emulator, host, port, url };
}
