import type { Kysely, Selectable } from 'kysely';
import type { CodeFormat } from '../../iac/code-edit.js';
import type { ForgeKind } from '../../iac/forge/forge.js';
import type { Database, ProjectSourcesTable } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';
import type { ProjectSource, SourceLink } from './code-records.js';

function recordOf(row: Selectable<ProjectSourcesTable>): ProjectSource {
  return {
    projectId: row.project_id,
    format: row.format as CodeFormat,
    repository: row.repository,
    path: row.path,
    branch: row.branch,
    address: row.address,
    target: row.target,
    tfvars: row.tfvars,
    forge: row.forge as ForgeKind,
    forgeApiUrl: row.forge_api_url,
    tokenSet: row.token_ciphertext !== null,
    apiWrites: row.api_writes === 1,
    origin: 'link',
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function rowOf(link: SourceLink): ProjectSourcesTable {
  return {
    project_id: link.projectId,
    format: link.format,
    repository: link.repository,
    path: link.path,
    branch: link.branch,
    address: link.address,
    target: link.target,
    tfvars: link.tfvars,
    forge: link.forge,
    forge_api_url: link.forgeApiUrl,
    token_ciphertext: link.tokenCiphertext,
    api_writes: link.apiWrites ? 1 : 0,
    created_by: link.createdBy,
    created_at: link.createdAt,
    updated_at: link.updatedAt,
  };
}

/**
 * Data access for project sources: links as records (the forge token never leaves sealed, and only through
 * `sealedToken`); changes are written with their audit entry in one transaction.
 */
export function createSourceRepository(db: Kysely<Database>) {
  return {
    async find(projectId: string): Promise<ProjectSource | null> {
      const row = await db
        .selectFrom('project_sources')
        .selectAll()
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? recordOf(row) : null;
    },

    /** The link's forge token as stored, sealed with the secrets box (null: none). */
    async sealedToken(projectId: string): Promise<string | null> {
      const row = await db
        .selectFrom('project_sources')
        .select('token_ciphertext')
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row?.token_ciphertext ?? null;
    },

    async save(link: SourceLink, audit: AuditEntry): Promise<void> {
      const row = rowOf(link);
      await db.transaction().execute(async (trx) => {
        const { project_id: _key, created_at: _created, created_by: _by, ...changes } = row;
        await trx
          .insertInto('project_sources')
          .values(row)
          .onConflict((conflict) => conflict.column('project_id').doUpdateSet(changes))
          .execute();
        await recordAudit(trx, audit, link.updatedAt);
      });
    },

    async remove(projectId: string, audit: AuditEntry, now: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom('project_sources')
          .where('project_id', '=', projectId)
          .executeTakeFirst();
        if (removed.numDeletedRows > 0n) await recordAudit(trx, audit, now);
        return removed.numDeletedRows > 0n;
      });
    },

    /** Sources with a stored token (key rotation re-encrypts them). */
    async withTokens(): Promise<Array<{ projectId: string; tokenCiphertext: string }>> {
      const rows = await db
        .selectFrom('project_sources')
        .select(['project_id', 'token_ciphertext'])
        .where('token_ciphertext', 'is not', null)
        .execute();
      return rows.map((row) => ({
        projectId: row.project_id,
        tokenCiphertext: row.token_ciphertext as string,
      }));
    },

    async replaceToken(projectId: string, ciphertext: string): Promise<void> {
      await db
        .updateTable('project_sources')
        .set({ token_ciphertext: ciphertext })
        .where('project_id', '=', projectId)
        .execute();
    },
  };
}

export type SourceRepository = ReturnType<typeof createSourceRepository>;
