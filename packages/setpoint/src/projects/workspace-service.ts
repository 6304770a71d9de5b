import { NotFoundError } from '@setpoint/foundation/errors';
import type { Kysely, Selectable } from 'kysely';
import type { SecretBox } from '../security/secret-box.js';
import type { Database, WorkspacesTable } from '../store/database-schema.js';
import { recordAudit } from './audit-log.js';
import { newId } from './ids.js';
import type { WorkspaceFacts } from './ports.js';

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
  /** Cloud/Databricks credentials (token, service principal…), stored encrypted. */
  credentials?: Record<string, string> | null | undefined;
  webhookCredentials?: Record<string, string> | null | undefined;
}

const aad = (id: string, field: 'credentials' | 'webhook_credentials') => `workspace:${id}:${field}`;

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
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

export function createWorkspaceService({ db, secretBox }: { db: Kysely<Database>; secretBox: SecretBox }) {
  const seal = (
    id: string,
    field: 'credentials' | 'webhook_credentials',
    value: Record<string, string> | null,
  ) => (value === null ? null : secretBox.encrypt(JSON.stringify(value), aad(id, field)));

  async function row(id: string) {
    const found = await db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    if (!found) throw new NotFoundError('WORKSPACE_NOT_FOUND', `workspace ${id} does not exist`);
    return found;
  }

  /** Field names only: the audit log must never hold a secret. */
  const auditDetail = (input: Partial<WorkspaceInput>) => {
    const { credentials, webhookCredentials, ...rest } = input;
    return {
      ...rest,
      ...(credentials !== undefined && { credentials: credentials === null ? 'cleared' : 'set' }),
      ...(webhookCredentials !== undefined && {
        webhookCredentials: webhookCredentials === null ? 'cleared' : 'set',
      }),
    };
  };

  return {
    async get(id: string): Promise<Workspace> {
      return toWorkspace(await row(id));
    },

    async list(): Promise<Workspace[]> {
      const rows = await db.selectFrom('workspaces').selectAll().orderBy('created_at', 'asc').execute();
      return rows.map(toWorkspace);
    },

    async create(input: WorkspaceInput, actor: string): Promise<Workspace> {
      const id = newId('wsp');
      const now = Date.now();
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('workspaces')
          .values({
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
          })
          .execute();
        await recordAudit(
          trx,
          { entity: 'workspace', entityId: id, action: 'create', actor, detail: auditDetail(input) },
          now,
        );
      });
      return toWorkspace(await row(id));
    },

    async update(id: string, patch: Partial<WorkspaceInput>, actor: string): Promise<Workspace> {
      await row(id);
      const now = Date.now();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('workspaces')
          .set({
            ...(patch.name !== undefined && { name: patch.name }),
            ...(patch.platform !== undefined && { platform: patch.platform }),
            ...(patch.cloud !== undefined && { cloud: patch.cloud }),
            ...(patch.region !== undefined && { region: patch.region }),
            ...(patch.host !== undefined && { host: patch.host }),
            ...(patch.planType !== undefined && { plan_type: patch.planType }),
            ...(patch.computeType !== undefined && { compute_type: patch.computeType }),
            ...(patch.credentials !== undefined && {
              credentials_ciphertext: seal(id, 'credentials', patch.credentials),
            }),
            ...(patch.webhookCredentials !== undefined && {
              webhook_credentials_ciphertext: seal(id, 'webhook_credentials', patch.webhookCredentials),
            }),
            updated_at: now,
          })
          .where('id', '=', id)
          .execute();
        await recordAudit(
          trx,
          { entity: 'workspace', entityId: id, action: 'update', actor, detail: auditDetail(patch) },
          now,
        );
      });
      return toWorkspace(await row(id));
    },

    async remove(id: string, actor: string): Promise<void> {
      await row(id);
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('projects')
          .set({ workspace_id: null })
          .where('workspace_id', '=', id)
          .execute();
        await trx.deleteFrom('workspaces').where('id', '=', id).execute();
        await recordAudit(trx, { entity: 'workspace', entityId: id, action: 'delete', actor, detail: {} });
      });
    },

    /** Decrypted credentials, for platform integrations only; never for an API response. */
    async credentials(id: string): Promise<{
      credentials: Record<string, string> | null;
      webhookCredentials: Record<string, string> | null;
    }> {
      const found = await row(id);
      const open = (envelope: string | null, field: 'credentials' | 'webhook_credentials') =>
        envelope === null
          ? null
          : (JSON.parse(secretBox.decrypt(envelope, aad(id, field))) as Record<string, string>);
      return {
        credentials: open(found.credentials_ciphertext, 'credentials'),
        webhookCredentials: open(found.webhook_credentials_ciphertext, 'webhook_credentials'),
      };
    },

    /** Re-encrypts every secret not yet under the active master key; returns how many were rewritten. */
    async reencryptSecrets(): Promise<number> {
      const rows = await db.selectFrom('workspaces').selectAll().execute();
      let rewritten = 0;
      for (const found of rows) {
        for (const [column, field] of [
          ['credentials_ciphertext', 'credentials'],
          ['webhook_credentials_ciphertext', 'webhook_credentials'],
        ] as const) {
          const envelope = found[column];
          if (envelope === null || secretBoxKeyId(envelope) === secretBox.activeKeyId) continue;
          const plaintext = secretBox.decrypt(envelope, aad(found.id, field));
          await db
            .updateTable('workspaces')
            .set({ [column]: secretBox.encrypt(plaintext, aad(found.id, field)) })
            .where('id', '=', found.id)
            .execute();
          rewritten += 1;
        }
      }
      return rewritten;
    },
  };
}

function secretBoxKeyId(envelope: string): string | undefined {
  return envelope.split('.')[1];
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
