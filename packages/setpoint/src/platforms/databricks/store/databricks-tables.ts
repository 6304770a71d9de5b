/**
 * Tables of the Databricks platform (migration 0003); JSON columns are text. Type aliases, not
 * interfaces: Kysely's `withTables` needs indexable records.
 */
export type DatabricksWorkspaceLinksTable = {
  workspace_id: string;
  destination_id: string | null;
  log_destination: string | null;
  /** The SQL warehouse system tables are read through (migration 0020). */
  sql_warehouse_id: string | null;
  updated_at: number;
};

/** A run's DBU cost estimated from list prices and, once billing rows arrive, as billed (migration 0020). */
export type DatabricksRunBillingTable = {
  run_id: string;
  project_id: string;
  workspace_id: string;
  databricks_run_id: string;
  cluster_id: string;
  estimated_dbus: number;
  estimated_dbu_usd: number;
  billed_dbus: number | null;
  billed_dbu_usd: number | null;
  billing_rows: number;
  /** 1 once a RETRACTION or RESTATEMENT changed what was billed. */
  restated: number;
  billed_at: number | null;
  /** When to look at system.billing.usage again; null once billing is settled. */
  next_check_at: number | null;
  created_at: number;
  updated_at: number;
  /** JSON PricedLaunchWindow[]: each node's launch window from the node timeline (null: placed by events). */
  launch_windows: string | null;
  /** The launch delay the estimate placed its nodes with (null: the middle of each first minute). */
  launch_delay_ms: number | null;
  /** When the run's cluster terminated (migration 0101; null: not known, the first records are taken as the bill). */
  cluster_terminated_at: number | null;
  /**
   * Set on a run of serverless compute, to the mode it ran in (migration 0170): its bill is the job run's
   * serverless records and `cluster_id` is empty; `cluster_terminated_at` is when its serverless tasks ended.
   */
  performance_target: string | null;
};

/** The launch delay each workspace's reconciled bills taught (launch_delay_ms null: none used yet). */
export type DatabricksLaunchDelaysTable = {
  workspace_id: string;
  launch_delay_ms: number | null;
  runs: number;
  default_error: number | null;
  learned_error: number | null;
  reason: string;
  updated_at: number;
};

export type DatabricksOnboardedJobsTable = {
  workspace_id: string;
  job_id: string;
  /** JSON `{newSettings, fieldsToRemove}` that undoes onboarding. */
  restore: string;
  last_seen_run_start: number | null;
  created_at: number;
};

export type DatabricksWebhookEventsTable = {
  event_key: string;
  workspace_id: string;
  received_at: number;
};

export type DatabricksTables = {
  databricks_workspace_links: DatabricksWorkspaceLinksTable;
  databricks_onboarded_jobs: DatabricksOnboardedJobsTable;
  databricks_webhook_events: DatabricksWebhookEventsTable;
  databricks_run_billing: DatabricksRunBillingTable;
  databricks_launch_delays: DatabricksLaunchDelaysTable;
};
