import type { Kysely } from 'kysely';
import type { Database } from '../../../store/database-schema.js';
import type { GroupingRule } from '../discovery/grouping.js';
import type { EmrTables } from './emr-tables.js';

export interface EmrWorkload {
  projectId: string;
  workspaceId: string;
  key: string;
  rule: GroupingRule;
  clusterId: string | null;
  createdAt: number;
}

type WorkloadRow = EmrTables['emr_workloads'];

function toWorkload(row: WorkloadRow): EmrWorkload {
  return {
    projectId: row.project_id,
    workspaceId: row.workspace_id,
    key: row.workload_key,
    rule: JSON.parse(row.grouping_rule) as GroupingRule,
    clusterId: row.cluster_id,
    createdAt: row.created_at,
  };
}

/** Data access for the EMR platform's own tables. */
export function createEmrRepository(database: Kysely<Database>) {
  const db = database.withTables<EmrTables>();
  return {
    async account(workspaceId: string) {
      const row = await db
        .selectFrom('emr_accounts')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return row
        ? {
            workspaceId: row.workspace_id,
            rule: JSON.parse(row.grouping_rule) as GroupingRule,
            lastReconciledAt: row.last_reconciled_at,
            createdAt: row.created_at,
          }
        : undefined;
    },
    async accountIds(): Promise<string[]> {
      const rows = await db.selectFrom('emr_accounts').select('workspace_id').execute();
      return rows.map((row) => row.workspace_id);
    },
    async saveAccount(workspaceId: string, rule: GroupingRule): Promise<void> {
      await db
        .insertInto('emr_accounts')
        .values({
          workspace_id: workspaceId,
          grouping_rule: JSON.stringify(rule),
          last_reconciled_at: null,
          created_at: Date.now(),
        })
        .onConflict((conflict) =>
          conflict.column('workspace_id').doUpdateSet({ grouping_rule: JSON.stringify(rule) }),
        )
        .execute();
    },
    async markReconciled(workspaceId: string, at: number): Promise<void> {
      await db
        .updateTable('emr_accounts')
        .set({ last_reconciled_at: at })
        .where('workspace_id', '=', workspaceId)
        .execute();
    },
    /** Forgets the account and what was imported from it; its projects stay, with their runs. */
    async removeAccount(workspaceId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('emr_collected_steps').where('workspace_id', '=', workspaceId).execute();
        await trx.deleteFrom('emr_workloads').where('workspace_id', '=', workspaceId).execute();
        await trx.deleteFrom('emr_accounts').where('workspace_id', '=', workspaceId).execute();
      });
    },

    async workloads(workspaceId?: string): Promise<EmrWorkload[]> {
      let query = db.selectFrom('emr_workloads').selectAll().orderBy('created_at').orderBy('project_id');
      if (workspaceId) query = query.where('workspace_id', '=', workspaceId);
      return (await query.execute()).map(toWorkload);
    },
    async workloadOfProject(projectId: string): Promise<EmrWorkload | undefined> {
      const row = await db
        .selectFrom('emr_workloads')
        .selectAll()
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? toWorkload(row) : undefined;
    },
    async saveWorkload(workload: Omit<EmrWorkload, 'createdAt'>): Promise<void> {
      await db
        .insertInto('emr_workloads')
        .values({
          project_id: workload.projectId,
          workspace_id: workload.workspaceId,
          workload_key: workload.key,
          grouping_rule: JSON.stringify(workload.rule),
          cluster_id: workload.clusterId,
          created_at: Date.now(),
        })
        .execute();
    },

    async collected(projectId: string, clusterId: string, stepId: string): Promise<boolean> {
      const row = await db
        .selectFrom('emr_collected_steps')
        .select('step_id')
        .where('project_id', '=', projectId)
        .where('cluster_id', '=', clusterId)
        .where('step_id', '=', stepId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async markCollected(input: {
      projectId: string;
      workspaceId: string;
      clusterId: string;
      stepId: string;
      runId: string | null;
    }): Promise<void> {
      await db
        .insertInto('emr_collected_steps')
        .values({
          project_id: input.projectId,
          workspace_id: input.workspaceId,
          cluster_id: input.clusterId,
          step_id: input.stepId,
          run_id: input.runId,
          collected_at: Date.now(),
        })
        .onConflict((conflict) => conflict.columns(['project_id', 'cluster_id', 'step_id']).doNothing())
        .execute();
    },
  };
}

export type EmrRepository = ReturnType<typeof createEmrRepository>;
