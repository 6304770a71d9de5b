import type { WorkspaceAuthBody } from '@setpoint/api-contract/databricks';

/** Credential keys that belong to the sign-in; everything else (AWS keys for S3 logs) is kept on rotation. */
const authKeys = [
  'auth_type',
  'token',
  'client_id',
  'client_secret',
  'azure_tenant_id',
  'azure_client_id',
  'azure_client_secret',
  'azure_authority_host',
];

/** The workspace's credentials with its sign-in replaced by `auth`. */
export function withAuth(
  credentials: Record<string, string> | null,
  auth: WorkspaceAuthBody,
): Record<string, string> {
  const kept = Object.fromEntries(
    Object.entries(credentials ?? {}).filter(([key]) => !authKeys.includes(key)),
  );
  const fields = Object.fromEntries(
    Object.entries(auth).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return { ...kept, ...fields };
}
