import { ValidationError } from '@setpoint/foundation/errors';
import { S3Client } from '@setpoint/foundation/s3';
import type { OutboundClients } from '../../../platform-api/platform.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import { createDatabricksClient, type DatabricksClient } from '../api/client.js';
import {
  createTransport,
  type DatabricksTransport,
  normalizeHost,
  type TransportSettings,
} from '../api/transport.js';
import { createBearerAuth } from '../auth/token-source.js';
import { workspaceAuthOf } from '../auth/workspace-auth.js';

export interface WorkspaceConnection {
  workspace: Awaited<ReturnType<WorkspaceService['get']>>;
  client: DatabricksClient;
  /** The client's transport (its auth, retries, fetch): other Databricks APIs (SQL statements) share it. */
  transport: DatabricksTransport;
  /** Reads cluster logs delivered to S3; present when the workspace has AWS credentials. */
  s3: S3Client | undefined;
}

/**
 * The workspace's encrypted credentials may hold, besides the Databricks `token`, AWS keys for an S3
 * log destination (`aws_access_key_id`, `aws_secret_access_key`, optional `aws_session_token`) and,
 * for an S3-compatible store, `s3_endpoint`; `s3_region` overrides the workspace's region.
 */
export function s3ClientFor(
  credentials: Record<string, string> | null,
  workspaceRegion: string | null,
  outbound: Pick<OutboundClients, 'nodeAgents'>,
): S3Client | undefined {
  const accessKeyId = credentials?.aws_access_key_id;
  const secretAccessKey = credentials?.aws_secret_access_key;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return new S3Client({
    region: credentials.s3_region ?? workspaceRegion ?? 'us-east-1',
    endpoint: credentials.s3_endpoint,
    credentials: { accessKeyId, secretAccessKey, sessionToken: credentials.aws_session_token },
    agents: outbound.nodeAgents(),
  });
}

export type ConnectWorkspace = (workspaceId: string) => Promise<WorkspaceConnection>;

/**
 * One Databricks client per workspace (so its concurrency limit is shared by every caller),
 * rebuilt when the workspace changes.
 */
export function createWorkspaceConnector(deps: {
  workspaces: Pick<WorkspaceService, 'get' | 'credentials'>;
  /** The SSRF-guarded clients: the workspace's host, its token issuer and S3 endpoint are user input. */
  outbound: OutboundClients;
  transport?: TransportSettings;
}): ConnectWorkspace {
  const cache = new Map<
    string,
    { updatedAt: number; client: DatabricksClient; transport: DatabricksTransport; s3: S3Client | undefined }
  >();
  return async (workspaceId) => {
    const workspace = await deps.workspaces.get(workspaceId);
    if (workspace.platform !== 'databricks') {
      throw new ValidationError(
        'NOT_DATABRICKS',
        `workspace ${workspaceId} is a ${workspace.platform} workspace, not Databricks`,
      );
    }
    const cached = cache.get(workspaceId);
    if (cached && cached.updatedAt === workspace.updatedAt)
      return { workspace, client: cached.client, transport: cached.transport, s3: cached.s3 };
    if (!workspace.host)
      throw new ValidationError('WORKSPACE_NO_HOST', `workspace ${workspaceId} has no Databricks host`);
    const { credentials } = await deps.workspaces.credentials(workspaceId);
    const { client, transport } = openClient(workspace.host, credentials, deps);
    const s3 = s3ClientFor(credentials, workspace.region, deps.outbound);
    cached?.s3?.close();
    cache.set(workspaceId, { updatedAt: workspace.updatedAt, client, transport, s3 });
    return { workspace, client, transport, s3 };
  };
}

/**
 * A Databricks client for a host and its credentials, through the SSRF guard: the connector's, and the
 * sign-in check of a workspace before it is registered (nothing stored).
 */
export function openClient(
  rawHost: string,
  credentials: Record<string, string> | null,
  deps: { outbound: OutboundClients; transport?: TransportSettings | undefined },
): { client: DatabricksClient; transport: DatabricksTransport } {
  const host = normalizeHost(rawHost);
  const fetch = deps.transport?.fetch ?? guardedFetchOf(deps.outbound);
  const auth = createBearerAuth(workspaceAuthOf(credentials), host, { fetch });
  const transport = createTransport({ ...deps.transport, fetch, host, auth });
  return { client: createDatabricksClient({ transport }), transport };
}

/** Every request of a workspace's clients goes through the SSRF guard (it connects only to allowed addresses). */
function guardedFetchOf(outbound: Pick<OutboundClients, 'fetch'>): typeof fetch {
  return (url, init) => outbound.fetch(url instanceof Request ? url.url : String(url), init);
}
