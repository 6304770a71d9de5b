import { ValidationError } from '@setpoint/foundation/errors';

/** The Azure Databricks first-party application: an Entra ID token for a workspace names it as its scope. */
export const azureDatabricksResourceId = '2ff814a6-3304-4ab8-85cb-cd0e6f879c1d';
export const defaultEntraAuthorityHost = 'https://login.microsoftonline.com';

/**
 * How Setpoint signs in to a workspace, named as the Databricks SDKs name them (`auth_type`):
 * a personal access token, OAuth machine-to-machine with a Databricks service principal's secret,
 * or a Microsoft Entra ID service principal (client secret) on Azure.
 */
export type WorkspaceAuth =
  | { method: 'pat'; token: string }
  | { method: 'oauth-m2m'; clientId: string; clientSecret: string }
  | {
      method: 'azure-client-secret';
      tenantId: string;
      clientId: string;
      clientSecret: string;
      authorityHost: string;
    };

export type AuthMethod = WorkspaceAuth['method'];

export const authMethodLabels: Record<AuthMethod, string> = {
  pat: 'personal access token',
  'oauth-m2m': 'OAuth M2M (Databricks service principal)',
  'azure-client-secret': 'Microsoft Entra ID service principal',
};

function required(credentials: Record<string, string>, key: string, method: AuthMethod): string {
  const value = credentials[key];
  if (!value)
    throw new ValidationError(
      'WORKSPACE_CREDENTIALS_INCOMPLETE',
      `credentials of auth_type ${method} need ${key}`,
    );
  return value;
}

/**
 * Reads the auth method out of a workspace's decrypted credentials. `auth_type` is absent on workspaces
 * added before OAuth existed: they hold a `token`.
 */
export function workspaceAuthOf(credentials: Record<string, string> | null): WorkspaceAuth {
  const fields = credentials ?? {};
  const method = fields.auth_type ?? 'pat';
  switch (method) {
    case 'pat': {
      if (!fields.token)
        throw new ValidationError(
          'WORKSPACE_NO_TOKEN',
          'the workspace has no Databricks token (credentials.token) and no other auth_type',
        );
      return { method, token: fields.token };
    }
    case 'oauth-m2m':
      return {
        method,
        clientId: required(fields, 'client_id', method),
        clientSecret: required(fields, 'client_secret', method),
      };
    case 'azure-client-secret':
      return {
        method,
        tenantId: required(fields, 'azure_tenant_id', method),
        clientId: required(fields, 'azure_client_id', method),
        clientSecret: required(fields, 'azure_client_secret', method),
        authorityHost: (fields.azure_authority_host ?? defaultEntraAuthorityHost).replace(/\/+$/, ''),
      };
    default:
      throw new ValidationError(
        'WORKSPACE_AUTH_TYPE_UNKNOWN',
        `credentials.auth_type "${method}" is not one of pat, oauth-m2m, azure-client-secret`,
      );
  }
}
