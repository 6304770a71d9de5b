import { isAppError } from '@setpoint/foundation/errors';
import { DatabricksApiError } from '../api/api-error.js';
import type { DatabricksClient } from '../api/client.js';
import type { BearerAuth } from '../api/transport.js';
import { type AuthMethod, authMethodLabels } from '../auth/workspace-auth.js';

export interface AccessCheckResult {
  check: string;
  ok: boolean;
  detail: string;
  /** How to fix it, when it failed. */
  fix?: string;
}

export interface AccessCheckOptions {
  /** The workspace's sign-in: the check names its method and when its credential expires. */
  auth?: BearerAuth;
  logDestination?: string | undefined;
  /** The workspace's SQL warehouse for system tables, and a probe of them through it. */
  systemTables?: {
    warehouseId: string | undefined;
    probe: (() => Promise<string>) | undefined;
  };
  /** Verify S3 read access with the workspace's AWS credentials (provided by the S3 adapter). */
  checkS3?: (destination: string) => Promise<string>;
  /** The sign-in's limit when shorter than `reachTimeoutMs` (a transport with shorter attempts). */
  reachTimeoutMs?: number | undefined;
}

/**
 * The first request of a check: one attempt, this long at most, so a host that is down or black-holed
 * is named "unreachable" within it instead of after every probe's retries.
 */
export const reachTimeoutMs = 10_000;

type Client = Pick<
  DatabricksClient,
  | 'host'
  | 'currentUser'
  | 'listJobs'
  | 'listRuns'
  | 'getCluster'
  | 'listClusterEvents'
  | 'dbfsList'
  | 'listDirectory'
  | 'listNotificationDestinations'
  | 'updateJob'
>;

/**
 * Tries each thing Setpoint will need, in order, and says line by line what works, what is missing,
 * why, and how to fix it. Nothing is changed: the job-update probe sends an empty update.
 */
export async function checkWorkspaceAccess(
  client: Client,
  options: AccessCheckOptions = {},
): Promise<AccessCheckResult[]> {
  const results: AccessCheckResult[] = [];
  const probe = async (
    check: string,
    fix: string | ((error: unknown) => string),
    run: () => Promise<string>,
  ) => {
    try {
      results.push({ check, ok: true, detail: await run() });
    } catch (error) {
      results.push({
        check,
        ok: false,
        detail: explain(error),
        fix: typeof fix === 'string' ? fix : fix(error),
      });
    }
  };

  const auth = options.auth;
  if (auth) {
    const signIn = await checkSignIn(client, auth, options.reachTimeoutMs);
    results.push(signIn.line);
    // one readable reason: every other line would fail for the same one
    if (signIn.stop) return results;
  }

  let firstJobId: string | undefined;
  let recentClusterId: string | undefined;
  await probe(
    'list jobs',
    'give the token’s user or service principal workspace access and CAN VIEW on the jobs to optimize',
    async () => {
      for await (const job of client.listJobs(1)) {
        firstJobId = job.job_id;
        return `can list jobs (first: ${job.settings.name ?? job.job_id})`;
      }
      return 'can list jobs (the workspace has none yet)';
    },
  );
  await probe('read runs', 'grant CAN VIEW on the jobs so their runs are readable', async () => {
    for await (const run of client.listRuns({ completedOnly: true })) {
      recentClusterId =
        run.cluster_instance?.cluster_id ??
        run.tasks?.find((task) => task.cluster_instance?.cluster_id)?.cluster_instance?.cluster_id;
      return `can read runs (latest: ${run.run_id})`;
    }
    return 'can read runs (no completed runs yet)';
  });
  await probe(
    'read clusters and cluster events',
    'grant CAN ATTACH TO / the workspace access entitlement so job clusters can be described',
    async () => {
      if (!recentClusterId) return 'no recent job cluster to read yet; will be checked on the first run';
      await client.getCluster(recentClusterId);
      const events = await client.listClusterEvents(recentClusterId);
      return `can read cluster ${recentClusterId} and its ${events.length} events`;
    },
  );
  const destination = options.logDestination;
  if (!destination || destination.startsWith('dbfs:/')) {
    await probe(
      'read DBFS',
      'grant read access to the DBFS log destination (or choose a Volumes or S3 destination)',
      async () => {
        const path = destination ?? 'dbfs:/';
        try {
          const files = await client.dbfsList(path);
          return `can list ${path} (${files.length} entries)`;
        } catch (error) {
          if (!isMissingPath(error)) throw error;
          return `${path} does not exist yet; Databricks creates it on the first log delivery`;
        }
      },
    );
  }
  if (destination?.startsWith('/Volumes/')) {
    await probe('read Volumes', 'grant READ VOLUME on the log volume to the token’s principal', async () => {
      let count = 0;
      try {
        for await (const _entry of client.listDirectory(destination)) count += 1;
      } catch (error) {
        if (!isMissingPath(error)) throw error;
        return `${destination} does not exist yet; Databricks creates it on the first log delivery`;
      }
      return `can list ${destination} (${count} entries)`;
    });
  }
  if (destination?.startsWith('s3://')) {
    const checkS3 = options.checkS3;
    const bucket = destination.slice('s3://'.length).split('/')[0] ?? '';
    await probe(
      'read S3',
      (error) => s3Fix(error, bucket, destination),
      async () => {
        if (!checkS3) throw new MissingAwsCredentials();
        return checkS3(destination);
      },
    );
  }
  const logLines = results.filter((line) => /^read (DBFS|Volumes|S3)$/.test(line.check));
  // with a warehouse and no log destination, onboarding leaves clusters without log delivery (agentless)
  const logsExpected = destination !== undefined || !options.systemTables?.warehouseId;
  const eventLogs = logsExpected && logLines.length > 0 && logLines.every((line) => line.ok);
  let systemTables = false;
  if (options.systemTables?.probe) {
    const systemProbe = options.systemTables.probe;
    await probe(
      'read system tables',
      `as a metastore admin: GRANT USE CATALOG ON CATALOG system, GRANT USE SCHEMA and SELECT ON SCHEMA system.billing, system.compute, system.lakeflow to the service principal; and CAN USE on SQL warehouse ${options.systemTables.warehouseId}`,
      async () => {
        const detail = await systemProbe();
        systemTables = true;
        return detail;
      },
    );
  }
  results.push(dataSources(eventLogs, systemTables, destination !== undefined));
  await probe(
    'create notification destinations',
    'the token must belong to a workspace admin (notification destinations are admin-only)',
    async () => {
      let count = 0;
      for await (const _destination of client.listNotificationDestinations()) count += 1;
      return `can manage notification destinations (${count} exist)`;
    },
  );
  await probe(
    'update jobs',
    'grant CAN MANAGE on the jobs Setpoint should change (or turn auto-apply off)',
    async () => {
      if (!firstJobId) return 'no job to probe yet; will be checked on import';
      await client.updateJob(firstJobId, {});
      return `can update jobs (probed job ${firstJobId} with an empty update)`;
    },
  );
  return results;
}

/**
 * Signs in with SCIM `Me` (any valid credential may read its own user), once and quickly. A host that
 * does not answer, or a credential the workspace refuses, ends the check with that one reason.
 */
export async function checkSignIn(
  client: Pick<DatabricksClient, 'host' | 'currentUser'>,
  auth: BearerAuth,
  shorterLimitMs?: number,
): Promise<{ line: AccessCheckResult; stop: boolean; reachable: boolean }> {
  const timeoutMs = Math.min(reachTimeoutMs, shorterLimitMs ?? reachTimeoutMs);
  const tried = `tried GET ${client.host}/api/2.0/preview/scim/v2/Me once, ${timeoutMs / 1000} s limit`;
  try {
    const user = await client.currentUser({ timeoutMs });
    const who = user.userName ?? user.displayName ?? user.id;
    return {
      line: {
        check: 'authenticate',
        ok: true,
        detail: `${authDetail(auth)}${who ? `; signed in as ${who}` : ''}`,
      },
      stop: false,
      reachable: true,
    };
  } catch (error) {
    if (isUnreachable(error)) {
      // Setpoint's own outbound rule refused the address: nothing was sent, and the message says how to allow it
      const refusedHere = !(error instanceof DatabricksApiError);
      return {
        line: {
          check: 'reach workspace',
          ok: false,
          detail: refusedHere
            ? `not contacted: ${reasonOf(error)}`
            : `unreachable: ${reasonOf(error)} (${tried})`,
          fix: refusedHere
            ? 'allow the host in SETPOINT_OUTBOUND_ALLOW_LIST on the Setpoint server, or correct the host'
            : 'check the host, and that the Setpoint server can reach it (DNS, firewall, proxy, VPN or PrivateLink)',
        },
        stop: true,
        reachable: false,
      };
    }
    if (error instanceof DatabricksApiError && (error.httpStatus === 401 || error.httpStatus === 403))
      return {
        line: {
          check: 'authenticate',
          ok: false,
          detail: `the workspace refused the ${credentialName(auth.method)}: ${explain(error)}`,
          fix: authFix(auth.method, error),
        },
        stop: true,
        reachable: true,
      };
    // the workspace answered but not with a user (throttled, an error, an API it does not serve): the
    // lines below show what the credential can do
    return {
      line: {
        check: 'authenticate',
        ok: true,
        detail: `${authDetail(auth)}; the sign-in was not confirmed (${explain(error)})`,
      },
      stop: false,
      reachable: true,
    };
  }
}

/** A network failure or Setpoint's own outbound refusal: nothing was answered. */
function isUnreachable(error: unknown): boolean {
  if (error instanceof DatabricksApiError)
    return error.errorCode === 'CONNECTION_FAILED' || error.errorCode === 'TIMEOUT';
  return isAppError(error);
}

function reasonOf(error: unknown): string {
  if (error instanceof DatabricksApiError)
    return error.message.split(': ').slice(2).join(': ') || error.message;
  return error instanceof Error ? error.message : String(error);
}

function credentialName(method: string): string {
  if (method === 'oauth-m2m') return 'service principal’s OAuth secret';
  if (method === 'azure-client-secret') return 'Entra ID client secret';
  return 'token';
}

/** Which sources a run is collected from, and what is lost without each. */
function dataSources(eventLogs: boolean, systemTables: boolean, logsConfigured: boolean): AccessCheckResult {
  const withoutLogs =
    'without event logs: no stage, task, spill, shuffle or input-size metrics, so the model learns from runtime and node utilization only';
  const withoutSystemTables =
    'without system tables: costs stay estimates from list prices (never reconciled to the bill) and there is no per-minute CPU and memory';
  if (eventLogs && systemTables)
    return {
      check: 'data sources',
      ok: true,
      detail: 'event logs and system tables: full profiles, utilization and costs reconciled to the bill',
    };
  if (systemTables)
    return {
      check: 'data sources',
      ok: true,
      detail: `system tables only (agentless): runs, costs as billed, node utilization and recommendations; ${withoutLogs}`,
      ...(logsConfigured
        ? {}
        : { fix: 'set a log destination (workspaces check --log-destination) to add event logs' }),
    };
  if (eventLogs)
    return {
      check: 'data sources',
      ok: true,
      detail: `event logs only; ${withoutSystemTables}`,
      fix: 'give the workspace a SQL warehouse (workspaces check --sql-warehouse-id) and grant the system schemas',
    };
  return {
    check: 'data sources',
    ok: false,
    detail: `neither event logs nor system tables are readable: runs cannot be collected (${withoutLogs}; ${withoutSystemTables})`,
    fix: 'set a readable log destination (--log-destination) or a SQL warehouse with system-table grants (--sql-warehouse-id)',
  };
}

function authDetail(auth: BearerAuth): string {
  const label = authMethodLabels[auth.method as AuthMethod] ?? auth.method;
  const expiresAt = auth.expiresAt();
  if (expiresAt === undefined)
    return `${label}; its expiry is set where it was created (Settings → Developer → Access tokens), not visible to Setpoint`;
  return `${label}; access token valid until ${new Date(expiresAt).toISOString()}, renewed automatically before then`;
}

function authFix(method: string, error: unknown): string {
  const code = error instanceof DatabricksApiError ? error.errorCode : '';
  if (method === 'oauth-m2m')
    return code === 'invalid_client'
      ? 'the client id or OAuth secret is wrong or revoked: create a new secret for the service principal (workspace admin settings → Identity and access → Service principals → Secrets) and rotate it in Setpoint'
      : 'check the workspace host and that the service principal is added to the workspace with Workspace access';
  if (method === 'azure-client-secret')
    return code === 'invalid_client'
      ? 'the Entra ID client secret is wrong or expired: add a new client secret under the app registration’s Certificates & secrets and rotate it in Setpoint'
      : 'check the tenant id, the authority host, and that the app is added to the workspace as a service principal';
  return 'the token is wrong, expired or revoked: create a new one (Databricks: Settings → Developer → Access tokens) and give it to Setpoint (--token or DATABRICKS_TOKEN; `setpoint workspaces auth` for a registered workspace)';
}

class MissingAwsCredentials extends Error {
  constructor() {
    super('the workspace has no AWS credentials to read the S3 log destination');
  }
}

function s3Fix(error: unknown, bucket: string, destination: string): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (error instanceof MissingAwsCredentials)
    return 'add aws_access_key_id and aws_secret_access_key (and s3_endpoint for an S3-compatible store) to the workspace credentials';
  if (code === 'S3_BUCKET_NOT_FOUND')
    return `create the bucket ${bucket} or correct the log destination (and the workspace's region or s3_endpoint)`;
  if (code === 'S3_ACCESS_DENIED')
    return `allow s3:ListBucket on arn:aws:s3:::${bucket} and s3:GetObject on ${destination.replace(/^s3:\/\//, 'arn:aws:s3:::').replace(/\/?$/, '/*')} for these AWS credentials`;
  return 'check that the S3 endpoint is reachable from Setpoint and try again';
}

function isMissingPath(error: unknown): boolean {
  return (
    error instanceof DatabricksApiError &&
    (error.errorCode === 'RESOURCE_DOES_NOT_EXIST' || error.errorCode === 'NOT_FOUND')
  );
}

function explain(error: unknown): string {
  if (error instanceof DatabricksApiError)
    return `${error.errorCode} (HTTP ${error.httpStatus}): ${error.message.split(': ').slice(2).join(': ') || error.message}`;
  return error instanceof Error ? error.message : String(error);
}
