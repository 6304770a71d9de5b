import type { EmrAccountResource, EmrConnectionSettings } from '@setpoint/api-contract/emr';
import type { EmrConnection } from '../api/emr-connection.js';
import type { EmrAccount } from '../emr-integration.js';
import type { LogStoreKeys } from './emr-account.js';

/** An account as the API shows it: its sign-in's kind and role, never a secret. */
export function presentAccount(account: EmrAccount): EmrAccountResource {
  return {
    id: account.id,
    name: account.name,
    region: account.region,
    credential_kind: account.signIn.kind,
    role_arn: account.signIn.roleArn,
    has_external_id: account.signIn.hasExternalId,
    access_key_id_hint: account.signIn.accessKeyIdHint,
    endpoint: account.signIn.endpoint,
    s3_endpoint: account.signIn.s3Endpoint,
    sts_endpoint: account.signIn.stsEndpoint,
    has_log_store_keys: account.signIn.hasLogStoreKeys,
    grouping: account.rule,
    last_reconciled_at: account.lastReconciledAt,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

/** The wire's credentials → the connection's (snake_case to the adapter's camelCase). */
export function connectionOf(body: EmrConnectionSettings): EmrConnection {
  const keys = (given: {
    access_key_id: string;
    secret_access_key: string;
    session_token?: string | undefined;
  }) => ({
    kind: 'access-keys' as const,
    accessKeyId: given.access_key_id,
    secretAccessKey: given.secret_access_key,
    ...(given.session_token ? { sessionToken: given.session_token } : {}),
  });
  const credentials = body.credentials;
  return {
    region: body.region,
    credentials:
      credentials.kind === 'default-chain'
        ? credentials
        : credentials.kind === 'access-keys'
          ? keys(credentials)
          : {
              kind: 'assume-role',
              roleArn: credentials.role_arn,
              ...(credentials.external_id ? { externalId: credentials.external_id } : {}),
              ...(credentials.session_name ? { sessionName: credentials.session_name } : {}),
              ...(credentials.source ? { source: keys(credentials.source) } : {}),
            },
    ...(body.endpoint ? { endpoint: body.endpoint } : {}),
    ...(body.s3_endpoint ? { s3Endpoint: body.s3_endpoint } : {}),
    ...(body.sts_endpoint ? { stsEndpoint: body.sts_endpoint } : {}),
  };
}

/** The wire's keys for a log store that has its own. */
export function logStoreKeysOf(body: Pick<EmrConnectionSettings, 'log_store_keys'>): LogStoreKeys | null {
  return body.log_store_keys
    ? {
        accessKeyId: body.log_store_keys.access_key_id,
        secretAccessKey: body.log_store_keys.secret_access_key,
      }
    : null;
}
