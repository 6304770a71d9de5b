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

/** An EMR Serverless application's job imported as a project (migration 0180). */
export type EmrServerlessJobsTable = {
  project_id: string;
  workspace_id: string;
  application_id: string;
  /** The job's runs' name without run-specific parts, else their entry point. */
  job_key: string;
  created_at: number;
};

export type EmrServerlessCollectedRunsTable = {
  project_id: string;
  application_id: string;
  job_run_id: string;
  workspace_id: string;
  run_id: string | null;
  collected_at: number;
};

export type EmrTables = {
  emr_accounts: EmrAccountsTable;
  emr_workloads: EmrWorkloadsTable;
  emr_collected_steps: EmrCollectedStepsTable;
  emr_serverless_jobs: EmrServerlessJobsTable;
  emr_serverless_collected_runs: EmrServerlessCollectedRunsTable;
};
