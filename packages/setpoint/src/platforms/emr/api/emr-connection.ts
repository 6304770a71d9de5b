import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { z } from 'zod';

/** Node agents every AWS request of an account goes through (the service's SSRF guard). */
export interface NodeAgents {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
}

export type AwsCredentialIdentityProvider = ReturnType<typeof fromNodeProviderChain>;
type AwsCredentialIdentity = Awaited<ReturnType<AwsCredentialIdentityProvider>>;

const accessKeysSchema = z.object({
  kind: z.literal('access-keys'),
  accessKeyId: z
    .string()
    .regex(/^[A-Z0-9]{16,128}$/, 'an AWS access key id is 16–128 upper-case letters and digits'),
  secretAccessKey: z.string().min(1),
  sessionToken: z.string().min(1).optional(),
});
const defaultChainSchema = z.object({ kind: z.literal('default-chain') });

/**
 * How Setpoint signs in to an AWS account: the AWS SDK's default chain (environment, shared config and
 * SSO, web identity, container and instance roles), access keys, or a role it assumes (with the external
 * id the role's trust policy asks for) on top of either.
 */
export const emrCredentialsSchema = z.discriminatedUnion('kind', [
  defaultChainSchema,
  accessKeysSchema,
  z.object({
    kind: z.literal('assume-role'),
    roleArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/,
        'a role ARN looks like arn:aws:iam::123456789012:role/name',
      ),
    externalId: z.string().min(2).max(1224).optional(),
    sessionName: z
      .string()
      .regex(/^[\w+=,.@-]{2,64}$/)
      .optional(),
    /** Who assumes the role; the default chain unless keys are given. */
    source: z.discriminatedUnion('kind', [defaultChainSchema, accessKeysSchema]).optional(),
  }),
]);
export type EmrCredentials = z.infer<typeof emrCredentialsSchema>;

export const emrConnectionSchema = z.object({
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region looks like us-east-1'),
  credentials: emrCredentialsSchema,
  /** An EMR endpoint other than AWS's (a VPC endpoint, the emulator, moto). */
  endpoint: z.url().optional(),
  /** An S3-compatible endpoint for the log buckets (path-style addressing). */
  s3Endpoint: z.url().optional(),
  /** An STS endpoint for assume-role (a VPC endpoint, moto). */
  stsEndpoint: z.url().optional(),
});
export type EmrConnection = z.infer<typeof emrConnectionSchema>;

export const defaultSessionName = 'setpoint';

/**
 * Whether requests of the connection are signed with the identity of the server Setpoint runs on (its
 * environment, instance or container role): the default chain, or a role assumed by it. Such an account
 * spends the server's own AWS rights, so only an admin may connect one.
 */
export function signsAsServer(connection: Pick<EmrConnection, 'credentials'>): boolean {
  const { credentials } = connection;
  if (credentials.kind === 'default-chain') return true;
  return credentials.kind === 'assume-role' && credentials.source?.kind !== 'access-keys';
}

function staticKeys(keys: z.infer<typeof accessKeysSchema>): AwsCredentialIdentity {
  return {
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    ...(keys.sessionToken ? { sessionToken: keys.sessionToken } : {}),
  };
}

/** The credential provider for a connection; the SDK caches and refreshes what it returns. */
export function credentialProvider(
  connection: EmrConnection,
  agents?: NodeAgents,
): AwsCredentialIdentityProvider {
  const credentials = connection.credentials;
  switch (credentials.kind) {
    case 'default-chain':
      return fromNodeProviderChain();
    case 'access-keys': {
      const keys = staticKeys(credentials);
      return async () => keys;
    }
    case 'assume-role': {
      const source = credentials.source;
      return fromTemporaryCredentials({
        params: {
          RoleArn: credentials.roleArn,
          RoleSessionName: credentials.sessionName ?? defaultSessionName,
          ...(credentials.externalId ? { ExternalId: credentials.externalId } : {}),
        },
        ...(source?.kind === 'access-keys' ? { masterCredentials: staticKeys(source) } : {}),
        clientConfig: {
          region: connection.region,
          ...(connection.stsEndpoint ? { endpoint: connection.stsEndpoint } : {}),
          requestHandler: emrRequestHandler(agents),
        },
      });
    }
  }
}

/** How long connecting to EMR or STS may take, and how long a request may stay silent once sent. */
export const emrConnectTimeoutMs = 10_000;
export const emrRequestTimeoutMs = 60_000;

/** A client's limits: how many attempts a call gets and how long each may take (a sign-in: one, short). */
export interface AwsCallLimits {
  maxAttempts: number;
  /** Connecting and each silence once sent, each at most this long. */
  timeoutMs: number;
}

/** A call's usual limits: four attempts, connecting within 10 s, an answer within 60 s. */
const usualLimits = { maxAttempts: 4, connectMs: emrConnectTimeoutMs, requestMs: emrRequestTimeoutMs };

/** The AWS SDK's request handler: the SSRF-guarded agents when given, and limits on every call. */
export function emrRequestHandler(agents: NodeAgents | undefined, limits?: AwsCallLimits) {
  return {
    ...agents,
    connectionTimeout: limits ? Math.min(limits.timeoutMs, usualLimits.connectMs) : usualLimits.connectMs,
    requestTimeout: limits?.timeoutMs ?? usualLimits.requestMs,
    // a sign-in's silence is its answer: the SDK only warns of a request past its time unless told to fail it
    ...(limits && { throwOnRequestTimeout: true }),
  };
}

/** The AWS SDK client configuration of a connection: its region, credentials, endpoint, agents and limits. */
export function awsClientConfig(
  connection: EmrConnection,
  credentials: AwsCredentialIdentityProvider,
  agents: NodeAgents | undefined,
  limits?: AwsCallLimits,
) {
  return {
    region: connection.region,
    credentials,
    maxAttempts: limits?.maxAttempts ?? usualLimits.maxAttempts,
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    requestHandler: emrRequestHandler(agents, limits),
  };
}

/** A connection as it may be shown: secrets replaced by a hint of their last characters. */
export function redactConnection(connection: EmrConnection): EmrConnection {
  const redactKeys = <T extends { secretAccessKey: string; sessionToken?: string | undefined }>(
    keys: T,
  ): T => ({
    ...keys,
    secretAccessKey: '********',
    ...(keys.sessionToken ? { sessionToken: '********' } : {}),
  });
  const credentials = connection.credentials;
  if (credentials.kind === 'access-keys') return { ...connection, credentials: redactKeys(credentials) };
  if (credentials.kind === 'assume-role' && credentials.source?.kind === 'access-keys')
    return { ...connection, credentials: { ...credentials, source: redactKeys(credentials.source) } };
  return connection;
}
