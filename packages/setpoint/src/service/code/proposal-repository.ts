import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ForgeKind } from '../../iac/forge/forge.js';
import type { CodeProposalsTable, Database } from '../../store/database-schema.js';
import { parseJsonColumn } from '../../store/json-column.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';
import type { ClusterConfiguration } from '../recommender/recommender.js';
import type { CodeProposal, ProposalChanges, ProposalState } from './code-records.js';

function recordOf(row: Selectable<CodeProposalsTable>): CodeProposal {
  return {
    id: row.id,
    projectId: row.project_id,
    recommendationId: row.recommendation_id,
    state: row.state as ProposalState,
    repository: row.repository,
    branch: row.branch,
    baseBranch: row.base_branch,
    commitSha: row.commit_sha,
    forge: row.forge as ForgeKind,
    number: row.number,
    url: row.url,
    configuration: parseJsonColumn<ClusterConfiguration>(row.configuration) ?? {},
    files: parseJsonColumn<string[]>(row.files) ?? [],
    diff: row.diff,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mergedAt: row.merged_at,
    appliedAt: row.applied_at,
  };
}

function rowOf(proposal: CodeProposal): CodeProposalsTable {
  return {
    id: proposal.id,
    project_id: proposal.projectId,
    recommendation_id: proposal.recommendationId,
    state: proposal.state,
    repository: proposal.repository,
    branch: proposal.branch,
    base_branch: proposal.baseBranch,
    commit_sha: proposal.commitSha,
    forge: proposal.forge,
    number: proposal.number,
    url: proposal.url,
    configuration: JSON.stringify(proposal.configuration),
    files: JSON.stringify(proposal.files),
    diff: proposal.diff,
    created_by: proposal.createdBy,
    created_at: proposal.createdAt,
    updated_at: proposal.updatedAt,
    merged_at: proposal.mergedAt,
    applied_at: proposal.appliedAt,
  };
}

function columnsOf(changes: ProposalChanges): Updateable<CodeProposalsTable> {
  return {
    updated_at: changes.updatedAt,
    ...(changes.state !== undefined ? { state: changes.state } : {}),
    ...(changes.mergedAt !== undefined ? { merged_at: changes.mergedAt } : {}),
    ...(changes.appliedAt !== undefined ? { applied_at: changes.appliedAt } : {}),
  };
}

/** Data access for code proposals, as records; each change is written with its audit entry in one transaction. */
export function createProposalRepository(db: Kysely<Database>) {
  return {
    async list(projectId: string): Promise<CodeProposal[]> {
      const rows = await db
        .selectFrom('code_proposals')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(recordOf);
    },

    async find(projectId: string, id: string): Promise<CodeProposal | null> {
      const row = await db
        .selectFrom('code_proposals')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? recordOf(row) : null;
    },

    /** Proposals still waiting for their merge or their deploy, oldest first. */
    async pending(projectId?: string): Promise<CodeProposal[]> {
      let query = db.selectFrom('code_proposals').selectAll().where('state', 'in', ['open', 'merged']);
      if (projectId) query = query.where('project_id', '=', projectId);
      return (await query.orderBy('created_at', 'asc').execute()).map(recordOf);
    },

    async insert(proposal: CodeProposal, supersede: string[], audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (supersede.length > 0)
          await trx
            .updateTable('code_proposals')
            .set({ state: 'superseded', updated_at: proposal.updatedAt })
            .where('id', 'in', supersede)
            .execute();
        await trx.insertInto('code_proposals').values(rowOf(proposal)).execute();
        await recordAudit(trx, audit, proposal.createdAt);
      });
    },

    async update(id: string, changes: ProposalChanges, audit?: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('code_proposals').set(columnsOf(changes)).where('id', '=', id).execute();
        if (audit) await recordAudit(trx, audit, changes.updatedAt);
      });
    },
  };
}

export type ProposalRepository = ReturnType<typeof createProposalRepository>;
