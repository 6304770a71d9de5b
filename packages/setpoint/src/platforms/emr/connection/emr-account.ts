import { ValidationError } from '@setpoint/foundation/errors';
import { S3Client } from '@setpoint/foundation/s3';
import type { OutboundClients } from '../../../platform-api/platform.js';
import type { Workspace, WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import { EmrClient } from '../api/emr-client.js';
import {
  credentialProvider,
  type EmrConnection,
  type EmrCredentials,
  emrConnectionSchema,
} from '../api/emr-connection.js';
import { EmrServerlessClient } from '../api/emr-serverless-client.js';

/** Keys for an S3-compatible log store that has its own (MinIO, Ceph): AWS accounts read logs with the account's. */
export interface LogStoreKeys {
  accessKeyId: string;
  secretAccessKey: string;
}

/** An EMR account as a workspace row (platform `emr`) holds it: the endpoint is the host, the rest is sealed. */
export interface EmrAccountConnection {
  connection: EmrConnection;
  logStoreKeys: LogStoreKeys | null;
}

type AccessKeys = Extract<EmrCredentials, { kind: 'access-keys' }>;

function keyFields(keys: Omit<AccessKeys, 'kind'>): Record<string, string> {
  return {
    access_key_id: keys.accessKeyId,
    secret_access_key: keys.secretAccessKey,
    ...(keys.sessionToken ? { session_token: keys.sessionToken } : {}),
  };
}

/** What the workspace's encrypted credentials hold for an account: secrets, and where requests go. */
export function sealedFieldsOf(account: EmrAccountConnection): Record<string, string> {
  const { connection } = account;
  const credentials = connection.credentials;
  const fields: Record<string, string> = { kind: credentials.kind };
  if (credentials.kind === 'access-keys') Object.assign(fields, keyFields(credentials));
  if (credentials.kind === 'assume-role') {
    fields.role_arn = credentials.roleArn;
    if (credentials.externalId) fields.external_id = credentials.externalId;
    if (credentials.sessionName) fields.session_name = credentials.sessionName;
    if (credentials.source?.kind === 'access-keys') Object.assign(fields, keyFields(credentials.source));
  }
  if (connection.s3Endpoint) fields.s3_endpoint = connection.s3Endpoint;
  if (connection.stsEndpoint) fields.sts_endpoint = connection.stsEndpoint;
  if (account.logStoreKeys) {
    fields.log_access_key_id = account.logStoreKeys.accessKeyId;
    fields.log_secret_access_key = account.logStoreKeys.secretAccessKey;
  }
  return fields;
}

/** The account's connection from its workspace row and its decrypted fields, validated again. */
export function accountConnectionOf(
  workspace: Pick<Workspace, 'id' | 'region' | 'host'>,
  fields: Record<string, string> | null,
): EmrAccountConnection {
  const keys =
    fields?.access_key_id && fields.secret_access_key
      ? {
          kind: 'access-keys' as const,
          accessKeyId: fields.access_key_id,
          secretAccessKey: fields.secret_access_key,
          ...(fields.session_token ? { sessionToken: fields.session_token } : {}),
        }
      : undefined;
  const credentials =
    fields?.kind === 'assume-role'
      ? {
          kind: 'assume-role',
          roleArn: fields.role_arn,
          ...(fields.external_id ? { externalId: fields.external_id } : {}),
          ...(fields.session_name ? { sessionName: fields.session_name } : {}),
          ...(keys ? { source: keys } : {}),
        }
      : fields?.kind === 'access-keys'
        ? keys
        : { kind: 'default-chain' };
  const parsed = emrConnectionSchema.safeParse({
    region: workspace.region,
    credentials,
    ...(workspace.host ? { endpoint: workspace.host } : {}),
    ...(fields?.s3_endpoint ? { s3Endpoint: fields.s3_endpoint } : {}),
    ...(fields?.sts_endpoint ? { stsEndpoint: fields.sts_endpoint } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'EMR_ACCOUNT_INVALID',
      `EMR account ${workspace.id} is not usable: ${issue?.path.join('.') || 'account'} ${issue?.message}; set its credentials again`,
    );
  }
  return {
    connection: parsed.data,
    logStoreKeys:
      fields?.log_access_key_id && fields.log_secret_access_key
        ? { accessKeyId: fields.log_access_key_id, secretAccessKey: fields.log_secret_access_key }
        : null,
  };
}

/** What may be shown about an account's sign-in: never a secret, at most the last characters of a key id. */
export interface EmrSignInSummary {
  kind: EmrCredentials['kind'];
  roleArn: string | null;
  hasExternalId: boolean;
  accessKeyIdHint: string | null;
  endpoint: string | null;
  s3Endpoint: string | null;
  stsEndpoint: string | null;
  hasLogStoreKeys: boolean;
}

export function signInSummary(account: EmrAccountConnection): EmrSignInSummary {
  const { credentials } = account.connection;
  const keys =
    credentials.kind === 'access-keys'
      ? credentials
      : credentials.kind === 'assume-role' && credentials.source?.kind === 'access-keys'
        ? credentials.source
        : undefined;
  return {
    kind: credentials.kind,
    roleArn: credentials.kind === 'assume-role' ? credentials.roleArn : null,
    hasExternalId: credentials.kind === 'assume-role' && credentials.externalId !== undefined,
    accessKeyIdHint: keys ? `…${keys.accessKeyId.slice(-4)}` : null,
    endpoint: account.connection.endpoint ?? null,
    s3Endpoint: account.connection.s3Endpoint ?? null,
    stsEndpoint: account.connection.stsEndpoint ?? null,
    hasLogStoreKeys: account.logStoreKeys !== null,
  };
}

export interface EmrAccountClients {
  workspace: Workspace;
  account: EmrAccountConnection;
  client: EmrClient;
  /** The account region's EMR Serverless applications and job runs (same credentials and endpoint). */
  serverless: EmrServerlessClient;
  /** Reads the log buckets (step stderr, Spark event logs). */
  s3: S3Client;
}

export type ConnectEmrAccount = (workspaceId: string) => Promise<EmrAccountClients>;

/**
 * One EMR and one S3 client per account, rebuilt when the account changes; every request goes through
 * the service's SSRF-guarded agents (the endpoints are user input).
 */
export function createEmrConnector(deps: {
  workspaces: Pick<WorkspaceService, 'get' | 'credentials'>;
  outbound: Pick<OutboundClients, 'nodeAgents'>;
}): ConnectEmrAccount {
  const cache = new Map<string, EmrAccountClients>();
  return async (workspaceId) => {
    const workspace = await deps.workspaces.get(workspaceId);
    if (workspace.platform !== 'emr')
      throw new ValidationError(
        'NOT_EMR',
        `workspace ${workspaceId} is a ${workspace.platform} workspace, not an EMR account`,
      );
    const cached = cache.get(workspaceId);
    if (cached && cached.workspace.updatedAt === workspace.updatedAt) return cached;
    const { credentials } = await deps.workspaces.credentials(workspaceId);
    const account = accountConnectionOf(workspace, credentials);
    const agents = deps.outbound.nodeAgents();
    const provider = credentialProvider(account.connection, agents);
    const clients: EmrAccountClients = {
      workspace,
      account,
      client: new EmrClient(account.connection, provider, agents),
      serverless: new EmrServerlessClient(account.connection, provider, agents),
      s3: new S3Client({
        region: account.connection.region,
        endpoint: account.connection.s3Endpoint,
        credentials: account.logStoreKeys ?? provider,
        agents,
      }),
    };
    if (cached) {
      cached.client.close();
      cached.serverless.close();
      cached.s3.close();
    }
    cache.set(workspaceId, clients);
    return clients;
  };
}
