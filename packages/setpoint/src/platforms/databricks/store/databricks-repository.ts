import type { Kysely } from 'kysely';
import type { Database } from '../../../store/database-schema.js';
import type { JobSettings } from '../api/schema.js';
import type { DatabricksTables } from './databricks-tables.js';

export interface RestoreSnapshot {
  newSettings: JobSettings;
  fieldsToRemove: string[];
}

/** Data access for the Databricks platform's own tables. */
export function createDatabricksRepository(database: Kysely<Database>) {
  const db = database.withTables<DatabricksTables>();
  return {
    async workspaceLink(workspaceId: string) {
      return db
        .selectFrom('databricks_workspace_links')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
    },
    async saveWorkspaceLink(
      workspaceId: string,
      values: {
        destinationId?: string | null;
        logDestination?: string | null;
        sqlWarehouseId?: string | null;
      },
    ) {
      const existing = await this.workspaceLink(workspaceId);
      const row = {
        workspace_id: workspaceId,
        destination_id:
          values.destinationId === undefined ? (existing?.destination_id ?? null) : values.destinationId,
        log_destination:
          values.logDestination === undefined ? (existing?.log_destination ?? null) : values.logDestination,
        sql_warehouse_id:
          values.sqlWarehouseId === undefined ? (existing?.sql_warehouse_id ?? null) : values.sqlWarehouseId,
        updated_at: Date.now(),
      };
      if (existing)
        await db
          .updateTable('databricks_workspace_links')
          .set(row)
          .where('workspace_id', '=', workspaceId)
          .execute();
      else await db.insertInto('databricks_workspace_links').values(row).execute();
    },
    async onboardedJob(workspaceId: string, jobId: string) {
      const row = await db
        .selectFrom('databricks_onboarded_jobs')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row ? { ...row, restore: JSON.parse(row.restore) as RestoreSnapshot } : undefined;
    },
    async onboardedJobs(workspaceId?: string) {
      let query = db.selectFrom('databricks_onboarded_jobs').selectAll();
      if (workspaceId) query = query.where('workspace_id', '=', workspaceId);
      return query.execute();
    },
    async recordOnboarding(workspaceId: string, jobId: string, restore: RestoreSnapshot) {
      await db
        .insertInto('databricks_onboarded_jobs')
        .values({
          workspace_id: workspaceId,
          job_id: jobId,
          restore: JSON.stringify(restore),
          last_seen_run_start: Date.now(),
          created_at: Date.now(),
        })
        .execute();
    },
    async forgetOnboarding(workspaceId: string, jobId: string) {
      await db
        .deleteFrom('databricks_onboarded_jobs')
        .where('workspace_id', '=', workspaceId)
        .where('job_id', '=', jobId)
        .execute();
    },
    async markSeen(workspaceId: string, jobId: string, runStart: number) {
      await db
        .updateTable('databricks_onboarded_jobs')
        .set({ last_seen_run_start: runStart })
        .where('workspace_id', '=', workspaceId)
        .where('job_id', '=', jobId)
        .where((eb) =>
          eb.or([eb('last_seen_run_start', 'is', null), eb('last_seen_run_start', '<', runStart)]),
        )
        .execute();
    },
    /** Webhook deliveries of the given event types (keys are `<workspace>:<event type>:<run id>`). */
    async webhookDeliveries(eventTypes: string[]): Promise<Array<{ eventKey: string; receivedAt: number }>> {
      const rows = await db
        .selectFrom('databricks_webhook_events')
        .select(['event_key', 'received_at'])
        .where((eb) => eb.or(eventTypes.map((type) => eb('event_key', 'like', `%:${type}:%`))))
        .execute();
      return rows.map((row) => ({ eventKey: row.event_key, receivedAt: row.received_at }));
    },
    /** True the first time an event key is seen. */
    async firstDelivery(workspaceId: string, eventKey: string): Promise<boolean> {
      const inserted = await db
        .insertInto('databricks_webhook_events')
        .values({ event_key: eventKey, workspace_id: workspaceId, received_at: Date.now() })
        .onConflict((conflict) => conflict.column('event_key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    },

    /** A run's DBU estimate, waiting for its billing rows (a second collection keeps the first). */
    async saveBillingEstimate(input: {
      runId: string;
      projectId: string;
      workspaceId: string;
      databricksRunId: string;
      clusterId: string;
      estimatedDbus: number;
      estimatedDbuUsd: number;
      nextCheckAt: number;
      /** Kept as JSON for learning the launch delay; empty when the events timed the nodes. */
      launchWindows: readonly object[];
      launchDelayMs: number | null;
      /** When the cluster terminated, so the bill is taken only once it reaches that hour. */
      clusterTerminatedAt: number | null;
      /** A run of serverless compute: the mode it ran in (its `clusterId` is empty). */
      performanceTarget?: string;
    }): Promise<void> {
      const now = Date.now();
      await db
        .insertInto('databricks_run_billing')
        .values({
          run_id: input.runId,
          project_id: input.projectId,
          workspace_id: input.workspaceId,
          databricks_run_id: input.databricksRunId,
          cluster_id: input.clusterId,
          estimated_dbus: input.estimatedDbus,
          estimated_dbu_usd: input.estimatedDbuUsd,
          billed_dbus: null,
          billed_dbu_usd: null,
          billing_rows: 0,
          restated: 0,
          billed_at: null,
          next_check_at: input.nextCheckAt,
          created_at: now,
          updated_at: now,
          launch_windows: input.launchWindows.length > 0 ? JSON.stringify(input.launchWindows) : null,
          launch_delay_ms: input.launchDelayMs,
          cluster_terminated_at: input.clusterTerminatedAt,
          performance_target: input.performanceTarget ?? null,
        })
        .onConflict((conflict) => conflict.column('run_id').doNothing())
        .execute();
    },

    /** Runs of a workspace whose billing is due for a look. */
    async billingDue(workspaceId: string, now: number, limit = 200) {
      return db
        .selectFrom('databricks_run_billing')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('next_check_at', 'is not', null)
        .where('next_check_at', '<=', now)
        .orderBy('next_check_at')
        .limit(limit)
        .execute();
    },

    async saveBilled(
      runId: string,
      values: {
        billedDbus: number | null;
        billedDbuUsd: number | null;
        billingRows: number;
        restated: boolean;
        billedAt: number | null;
        nextCheckAt: number | null;
      },
    ): Promise<void> {
      await db
        .updateTable('databricks_run_billing')
        .set({
          billed_dbus: values.billedDbus,
          billed_dbu_usd: values.billedDbuUsd,
          billing_rows: values.billingRows,
          restated: values.restated ? 1 : 0,
          billed_at: values.billedAt,
          next_check_at: values.nextCheckAt,
          updated_at: Date.now(),
        })
        .where('run_id', '=', runId)
        .execute();
    },

    async billingOfRuns(runIds: readonly string[]) {
      if (runIds.length === 0) return [];
      return db.selectFrom('databricks_run_billing').selectAll().where('run_id', 'in', runIds).execute();
    },

    async billingOfProjects(projectIds: readonly string[]) {
      if (projectIds.length === 0) return [];
      return db
        .selectFrom('databricks_run_billing')
        .selectAll()
        .where('project_id', 'in', projectIds)
        .execute();
    },

    /** The workspace's latest billed runs whose estimate kept its nodes' launch windows. */
    async reconciledLaunches(workspaceId: string, limit: number) {
      return db
        .selectFrom('databricks_run_billing')
        .select(['launch_windows', 'launch_delay_ms', 'estimated_dbus', 'billed_dbus'])
        .where('workspace_id', '=', workspaceId)
        .where('billed_dbus', 'is not', null)
        .where('launch_windows', 'is not', null)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute();
    },

    async launchDelay(workspaceId: string) {
      return db
        .selectFrom('databricks_launch_delays')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
    },

    async saveLaunchDelay(
      workspaceId: string,
      fit: {
        launchDelayMs: number | null;
        runs: number;
        defaultError: number | null;
        learnedError: number | null;
        reason: string;
      },
    ): Promise<void> {
      const values = {
        launch_delay_ms: fit.launchDelayMs,
        runs: fit.runs,
        default_error: fit.defaultError,
        learned_error: fit.learnedError,
        reason: fit.reason,
        updated_at: Date.now(),
      };
      await db
        .insertInto('databricks_launch_delays')
        .values({ workspace_id: workspaceId, ...values })
        .onConflict((conflict) => conflict.column('workspace_id').doUpdateSet(values))
        .execute();
    },

    async allBilling() {
      return db.selectFrom('databricks_run_billing').selectAll().execute();
    },
  };
}

export type DatabricksRepository = ReturnType<typeof createDatabricksRepository>;
