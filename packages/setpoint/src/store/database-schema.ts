import type { Generated } from 'kysely';

/** Timestamps are epoch milliseconds on both dialects; JSON documents are text. */
export interface ProjectsTable {
  id: string;
  name: string;
  description: string | null;
  workspace_id: Generated<string | null>;
  job_id: Generated<string | null>;
  cluster_key: Generated<string | null>;
  app_id: Generated<string | null>;
  /** JSON `ProjectSettings`. */
  settings: Generated<string>;
  phase: Generated<string>;
  /** Set by `projects reset`: only runs from then on teach the optimizer. */
  learning_reset_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  entity: string;
  entity_id: string;
  action: string;
  actor: string;
  detail: string;
  /** The project the entry concerns (migration 0070); null for keys, users, workspaces, settings. */
  project_id: Generated<string | null>;
  created_at: number;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  platform: string;
  cloud: string;
  region: string | null;
  host: string | null;
  plan_type: string | null;
  compute_type: string | null;
  /** AES-256-GCM envelope (see src/security/secret-box.ts); never plaintext. */
  credentials_ciphertext: string | null;
  webhook_credentials_ciphertext: string | null;
  created_at: number;
  updated_at: number;
}

export interface RunsTable {
  id: string;
  project_id: string;
  external_run_id: string;
  pipeline_state: string;
  status: string | null;
  started_at: number | null;
  ended_at: number | null;
  cluster_config: string | null;
  cluster_timeline: string | null;
  cluster_report: string | null;
  eventlog_uri: string | null;
  eventlog_blob_key: string | null;
  eventlog_bytes: number | null;
  profile: string | null;
  /** What the model reads of the profile (`eventlog/model-profile.ts`, migration 0090). */
  model_profile: string | null;
  cost: string | null;
  input_bytes: number | null;
  recommendation_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface RecommendationsTable {
  id: string;
  project_id: string;
  idempotency_key: string | null;
  state: string;
  phase: string | null;
  configuration: string | null;
  prediction: string | null;
  explanation: string | null;
  /** JSON: the structured decision (see `RecommendationDecision`); null for older recommendations. */
  decision: string | null;
  based_on_run_id: string | null;
  /** When run retention deleted the run this was based on (`based_on_run_id` is then null). */
  based_on_run_pruned_at: number | null;
  error: string | null;
  requested_by: string;
  apply_requested_at: number | null;
  apply_requested_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  /** HMAC-SHA256 of the secret under the server secret, hex. */
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface QueueJobsTable {
  id: Generated<number>;
  kind: string;
  payload: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  run_at: number;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  idempotency_key: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface ParkedJobsTable {
  id: Generated<number>;
  queue: string;
  job_id: string;
  kind: string;
  payload: string;
  error: string;
  attempts: number;
  created_at: number;
}

export interface UsersTable {
  id: string;
  username: string;
  /** `scrypt$N$r$p$salt$hash`, base64url parts. */
  password_hash: string;
  role: string;
  created_at: number;
  /** Set while an admin has disabled the user (migration 0071): no sign-in, no sessions. */
  disabled_at: Generated<number | null>;
}

export interface SessionsTable {
  /** SHA-256 of the session token; the token itself is only ever in the user's cookie. */
  token_hash: string;
  user_id: string;
  csrf_token: string;
  expires_at: number;
  created_at: number;
}

/** The organization's settings document (migration 0005): one row. */
export interface OrganizationSettingsTable {
  id: string;
  /** JSON `OrganizationSettings`. */
  settings: string;
  updated_at: number;
  updated_by: string;
}

/** Where alerts go (migration 0030); `secret` is a SecretBox envelope. */
export interface AlertDestinationsTable {
  id: string;
  name: string;
  kind: string;
  settings: string;
  secret: string | null;
  max_per_hour: number;
  created_at: number;
  created_by: string;
  /** The last edit (migration 0080); null until the destination is first changed. */
  updated_at: Generated<number | null>;
  updated_by: Generated<string | null>;
}

export interface AlertRulesTable {
  id: string;
  project_id: string | null;
  event: string;
  destination_id: string;
  params: string;
  enabled: number;
  evaluated_until: number | null;
  created_at: number;
  created_by: string;
}

export interface NotificationsTable {
  id: string;
  rule_id: string;
  destination_id: string;
  project_id: string | null;
  event: string;
  dedupe_key: string;
  title: string;
  detail: string;
  status: string;
  error: string | null;
  created_at: number;
  /** Deliveries tried so far (migration 0072). */
  attempts: Generated<number>;
  /** When a RETRYING notification is tried again. */
  next_attempt_at: Generated<number | null>;
}

/** A one-time pass over old rows that has finished (migration 0082). */
export interface MaintenancePassesTable {
  name: string;
  finished_at: number;
}

/** A project's runs that left its learning window, folded (migration 0083). */
export interface ProjectLearningSummariesTable {
  project_id: string;
  /** The project's learning reset the summary belongs to (0: never reset). */
  learning_since: number;
  /** The last run folded: runs after it are not in the summary. */
  marker_created_at: number;
  marker_run_id: string;
  /** Runs folded since the reset, whatever a rebase later dropped. */
  folded_runs: number;
  /** `FoldedStatistics` as JSON. */
  statistics: string;
  updated_at: number;
}

/** One entry of a project's apply history, on every platform (migration 0140). */
export interface AppliedChangesTable {
  id: string;
  project_id: string;
  /** The platform that wrote it (`workspaces.platform`). */
  platform: string;
  recommendation_id: string | null;
  /** `baseline`, `apply`, `auto-apply`, `rollback` or `revert`. */
  kind: string;
  /** JSON: the platform's record of what was written (a whole cluster, or a resize with before and after). */
  configuration: string;
  /** The entry a rollback or revert undid, where a platform undoes changes one by one. */
  undoes: string | null;
  actor: string;
  reason: string;
  created_at: number;
  /** When a run on it first met the project's SLA (migration 0144); null while none has. */
  met_sla_at: number | null;
}

/** A project's auto-apply pause and the last configuration a run went well on (migration 0140). */
export interface ApplyGuardsTable {
  project_id: string;
  auto_apply_paused: number;
  pause_reason: string | null;
  last_good_change_id: string | null;
  updated_at: number;
}

/** A write into a project's cluster, recorded before it is written (migration 0143). */
/** A learning run waiting for a person's approval, and what became of it (migration 0170). */
export interface ApplyApprovalsTable {
  recommendation_id: string;
  project_id: string;
  /** `waiting` (at most one per project), `approved`, `rejected`, `superseded`. */
  state: string;
  learning_run: number | null;
  waiting_since: number;
  decided_at: number | null;
  decided_by: string | null;
  reason: string | null;
}

export interface ApplyIntentsTable {
  id: string;
  project_id: string;
  platform: string;
  /** `apply`, `auto-apply`, `rollback` or `revert`. */
  kind: string;
  recommendation_id: string | null;
  actor: string;
  /** `pending` (at most one per project), `written`, `skipped`, `failed`, `abandoned`. */
  state: string;
  /** JSON: the write in flight, as the history records it once written. */
  configuration: string | null;
  undoes: string | null;
  reason: string | null;
  /** Why it was skipped, failed or abandoned. */
  outcome: string | null;
  /** The history entry it became. */
  change_id: string | null;
  /** A pending intent past its lease was left by a process that died. */
  lease_until: number;
  created_at: number;
  updated_at: number;
}

/**
 * The core's tables. A platform's tables are not here: its repositories reach them through
 * `db.withTables<ItsTables>()`, so the core never names a platform.
 */
/** Where a project's configuration lives in code (migration 0160). */
export interface ProjectSourcesTable {
  project_id: string;
  /** terraform | bundle | airflow */
  format: string;
  repository: string;
  path: string;
  branch: string | null;
  /** The resource (`databricks_job.orders`), bundle job key or DAG task id, when the file holds several. */
  address: string | null;
  target: string | null;
  tfvars: string | null;
  /** github | gitlab | none */
  forge: string;
  forge_api_url: string | null;
  /** AES-256-GCM envelope of the forge token; never plaintext. */
  token_ciphertext: string | null;
  /** 1: the team lets Setpoint write the job through the platform's API too. */
  api_writes: number;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/** A change Setpoint proposed in a project's code (migration 0160). */
export interface CodeProposalsTable {
  id: string;
  project_id: string;
  recommendation_id: string;
  /** open | merged | applied | closed | superseded */
  state: string;
  repository: string;
  branch: string;
  base_branch: string;
  commit_sha: string;
  forge: string;
  number: number | null;
  url: string | null;
  /** JSON: the recommendation's configuration the proposal writes. */
  configuration: string;
  /** JSON: the files it changes. */
  files: string;
  diff: string;
  created_by: string;
  created_at: number;
  updated_at: number;
  merged_at: number | null;
  applied_at: number | null;
}

export interface Database {
  projects: ProjectsTable;
  audit_log: AuditLogTable;
  workspaces: WorkspacesTable;
  runs: RunsTable;
  recommendations: RecommendationsTable;
  api_keys: ApiKeysTable;
  queue_jobs: QueueJobsTable;
  parked_jobs: ParkedJobsTable;
  users: UsersTable;
  sessions: SessionsTable;
  organization_settings: OrganizationSettingsTable;
  alert_destinations: AlertDestinationsTable;
  alert_rules: AlertRulesTable;
  notifications: NotificationsTable;
  maintenance_passes: MaintenancePassesTable;
  project_learning_summaries: ProjectLearningSummariesTable;
  applied_changes: AppliedChangesTable;
  apply_guards: ApplyGuardsTable;
  apply_intents: ApplyIntentsTable;
  apply_approvals: ApplyApprovalsTable;
  project_sources: ProjectSourcesTable;
  code_proposals: CodeProposalsTable;
}
