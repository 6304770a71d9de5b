/**
 * Tables of the EMR platform (migration 0050); JSON columns are text. Type aliases, not interfaces:
 * Kysely's `withTables` needs indexable records.
 */
export type EmrAccountsTable = {
  /** The account's workspace row (platform `emr`): name, region, endpoint, sealed credentials. */
  workspace_id: string;
  /** JSON `GroupingRule`: how the account's steps become workloads. */
  grouping_rule: string;
  last_reconciled_at: number | null;
  created_at: number;
};

/** A recurring workload imported as a project. */
export type EmrWorkloadsTable = {
  project_id: string;
  workspace_id: string;
  workload_key: string;
  /** JSON `GroupingRule` the key was made by. */
  grouping_rule: string;
  /** The long-running cluster the workload's steps run on (apply resizes it); null for transient clusters. */
  cluster_id: string | null;
  created_at: number;
};

export type EmrCollectedStepsTable = {
  project_id: string;
  cluster_id: string;
  step_id: string;
  workspace_id: string;
  run_id: string | null;
  collected_at: number;
};

export type EmrTables = {
  emr_accounts: EmrAccountsTable;
  emr_workloads: EmrWorkloadsTable;
  emr_collected_steps: EmrCollectedStepsTable;
};
