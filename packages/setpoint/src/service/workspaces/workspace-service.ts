import { ForbiddenError, ValidationError } from '@setpoint/foundation/errors';
import type { OutboundGuard } from '../../security/outbound-guard.js';
import type { SecretBox } from '../../security/secret-box.js';
import { newId } from '../../store/ids.js';
import type { UserRole } from '../auth/user-service.js';
import type { WorkspaceColumns, WorkspaceRepository, WorkspaceRow } from './workspace-repository.js';

/** A workspace as the pipeline, the coster and the recommender see it. */
export interface WorkspaceFacts {
  id: string;
  /** The platform plugin that manages it (`databricks`). */
  platform: string;
  cloud: string;
  region: string | null;
  planType: string | null;
  computeType: string | null;
}

/** What the API returns: secrets are write-only, so only whether they are set. */
export interface Workspace extends WorkspaceFacts {
  name: string;
  host: string | null;
  hasCredentials: boolean;
  hasWebhookCredentials: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface WorkspaceInput {
  name: string;
  platform: string;
  cloud: string;
  region?: string | null | undefined;
  host?: string | null | undefined;
  planType?: string | null | undefined;
  computeType?: string | null | undefined;
  /** Cloud and platform credentials (token, service principal…), stored encrypted. */
  credentials?: Record<string, string> | null | undefined;
  webhookCredentials?: Record<string, string> | null | undefined;
}

/** Who changes a workspace: retargeting it (host, S3 endpoint) is for admins only. */
export interface WorkspaceActor {
  actor: string;
  role: UserRole;
}

export type SecretField = 'credentials' | 'webhook_credentials';

/** The URL a stored host stands for: the Databricks client adds https:// to a bare host name. */
export function workspaceHostUrl(host: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(host);
  if (scheme && !/^https?:\/\//i.test(host)) {
    throw new ValidationError(
      'WORKSPACE_HOST_SCHEME',
      `host: the scheme ${scheme[1]}: is not allowed (use https://, or http:// for an allow-listed host)`,
    );
  }
  return /^https?:\/\//i.test(host) ? host : `https://${host}`;
}
/** The associated data that binds a workspace's secret to its record and column. */
export const workspaceSecretScope = (id: string, field: SecretField) => `workspace:${id}:${field}`;

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    cloud: row.cloud,
    region: row.region,
    host: row.host,
    planType: row.plan_type,
    computeType: row.compute_type,
    hasCredentials: row.credentials_ciphertext !== null,
    hasWebhookCredentials: row.webhook_credentials_ciphertext !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Field names only: the audit log must never hold a secret. */
function auditDetail(input: Partial<WorkspaceInput>) {
  const { credentials, webhookCredentials, ...rest } = input;
  return {
    ...rest,
    ...(credentials !== undefined && { credentials: credentials === null ? 'cleared' : 'set' }),
    ...(webhookCredentials !== undefined && {
      webhookCredentials: webhookCredentials === null ? 'cleared' : 'set',
    }),
  };
}

export function createWorkspaceService({
  workspaces,
  secretBox,
  outbound,
}: {
  workspaces: WorkspaceRepository;
  secretBox: SecretBox;
  /** Host and S3 endpoint are checked against the SSRF rule when they are stored. */
  outbound: Pick<OutboundGuard, 'assertConfigurable'>;
}) {
  const seal = (id: string, field: SecretField, value: Record<string, string> | null) =>
    value === null ? null : secretBox.encrypt(JSON.stringify(value), workspaceSecretScope(id, field));

  function columnsOf(id: string, input: Partial<WorkspaceInput>): WorkspaceColumns {
    return {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.platform !== undefined && { platform: input.platform }),
      ...(input.cloud !== undefined && { cloud: input.cloud }),
      ...(input.region !== undefined && { region: input.region }),
      ...(input.host !== undefined && { host: input.host }),
      ...(input.planType !== undefined && { plan_type: input.planType }),
      ...(input.computeType !== undefined && { compute_type: input.computeType }),
      ...(input.credentials !== undefined && {
        credentials_ciphertext: seal(id, 'credentials', input.credentials),
      }),
      ...(input.webhookCredentials !== undefined && {
        webhook_credentials_ciphertext: seal(id, 'webhook_credentials', input.webhookCredentials),
      }),
    };
  }

  /** Refuses a host or S3 endpoint Setpoint must not call (loopback, private… unless allow-listed). */
  async function assertTargets(input: Partial<WorkspaceInput>): Promise<void> {
    if (input.host) await outbound.assertConfigurable(workspaceHostUrl(input.host), 'host');
    const endpoint = input.credentials?.s3_endpoint;
    if (endpoint) await outbound.assertConfigurable(endpoint, 'credentials.s3_endpoint');
  }

  const open = (id: string, envelope: string | null, field: SecretField) =>
    envelope === null
      ? null
      : (JSON.parse(secretBox.decrypt(envelope, workspaceSecretScope(id, field))) as Record<string, string>);

  return {
    async get(id: string): Promise<Workspace> {
      return toWorkspace(await workspaces.get(id));
    },

    async list(): Promise<Workspace[]> {
      return (await workspaces.list()).map(toWorkspace);
    },

    /** The workspace's facts for analysis, or null when the project has none (or it was deleted). */
    async facts(id: string | null): Promise<WorkspaceFacts | null> {
      const row = id ? await workspaces.find(id) : undefined;
      if (!row) return null;
      const { id: found, platform, cloud, region, planType, computeType } = toWorkspace(row);
      return { id: found, platform, cloud, region, planType, computeType };
    },

    /** `beforeInsert` runs once the targets are allowed and before anything is stored (a sign-in check). */
    async create(
      input: WorkspaceInput,
      actor: string,
      beforeInsert?: (input: WorkspaceInput) => Promise<void>,
    ): Promise<Workspace> {
      await assertTargets(input);
      await beforeInsert?.(input);
      const id = newId('wsp');
      const now = Date.now();
      await workspaces.insert(
        {
          id,
          name: input.name,
          platform: input.platform,
          cloud: input.cloud,
          region: input.region ?? null,
          host: input.host ?? null,
          plan_type: input.planType ?? null,
          compute_type: input.computeType ?? null,
          credentials_ciphertext: seal(id, 'credentials', input.credentials ?? null),
          webhook_credentials_ciphertext: seal(id, 'webhook_credentials', input.webhookCredentials ?? null),
          created_at: now,
          updated_at: now,
        },
        { entity: 'workspace', entityId: id, action: 'create', actor, detail: auditDetail(input) },
      );
      return toWorkspace(await workspaces.get(id));
    },

    /**
     * Changing where the workspace's requests go (its host, or the S3 endpoint in its credentials) is
     * for admins only, and clears the stored secrets the request does not re-enter: credentials
     * entered for one host are never sent to another.
     */
    async update(id: string, patch: Partial<WorkspaceInput>, by: WorkspaceActor): Promise<Workspace> {
      const current = await workspaces.get(id);
      if (patch.platform !== undefined && patch.platform !== current.platform) {
        throw new ValidationError(
          'WORKSPACE_PLATFORM_FIXED',
          `workspace ${id} is a ${current.platform} workspace; its platform cannot change (add a new one instead)`,
        );
      }
      await assertTargets(patch);
      const hostChanges = patch.host !== undefined && (patch.host ?? null) !== current.host;
      const storedEndpoint = open(id, current.credentials_ciphertext, 'credentials')?.s3_endpoint;
      const endpointChanges =
        patch.credentials !== undefined &&
        patch.credentials !== null &&
        (patch.credentials.s3_endpoint ?? undefined) !== storedEndpoint;
      if ((hostChanges || endpointChanges) && by.role !== 'admin') {
        throw new ForbiddenError(
          `only admins may change where workspace ${id} sends its credentials (host, s3_endpoint)`,
        );
      }
      const effective: Partial<WorkspaceInput> = hostChanges
        ? {
            ...patch,
            credentials: patch.credentials ?? null,
            webhookCredentials: patch.webhookCredentials ?? null,
          }
        : patch;
      await workspaces.update(id, columnsOf(id, effective), Date.now(), {
        entity: 'workspace',
        entityId: id,
        action: 'update',
        actor: by.actor,
        detail: { ...auditDetail(effective), ...(hostChanges && { secretsCleared: true }) },
      });
      return toWorkspace(await workspaces.get(id));
    },

    async remove(id: string, actor: string): Promise<void> {
      await workspaces.get(id);
      await workspaces.remove(id, { entity: 'workspace', entityId: id, action: 'delete', actor, detail: {} });
    },

    /** Decrypted credentials, for platform plugins only; never for an API response. */
    async credentials(id: string): Promise<{
      credentials: Record<string, string> | null;
      webhookCredentials: Record<string, string> | null;
    }> {
      const found = await workspaces.get(id);
      return {
        credentials: open(id, found.credentials_ciphertext, 'credentials'),
        webhookCredentials: open(id, found.webhook_credentials_ciphertext, 'webhook_credentials'),
      };
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
