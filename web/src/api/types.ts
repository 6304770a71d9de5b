/** Wire shapes of /api/v1 as the dashboard reads them (snake_case, settings keep their names). */

export const projectPhases = ['PENDING_SETUP', 'LEARNING', 'OPTIMIZING', 'REBASING', 'MONITORING'] as const;
export type ProjectPhase = (typeof projectPhases)[number];

export type Role = 'admin' | 'editor' | 'viewer';

export interface SessionUser {
  username: string;
  role: Role;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface SystemInfo {
  version: string;
  database: 'sqlite' | 'postgres';
  projects: number;
}

export interface ProjectSettings {
  slaMinutes: number | null;
  autoApply: boolean;
  maintainScalingType: boolean;
  preference: 'economy' | 'balanced' | 'performance';
  allowedInstanceFamilies: string[];
  allowedInstanceTypes: string[];
  minWorkers: number;
  maxWorkers: number;
  spotPolicy: 'on-demand-only' | 'spot-with-fallback' | 'spot-allowed';
  forceOnDemandDriver: boolean;
  optimizationWindow: { cron: string; durationMinutes: number } | null;
  photonAllowed: boolean;
}

export type RoiMethod = 'cost_change' | 'cost_per_gb_change';

export interface WireInsight {
  kind: string;
  severity: 'info' | 'warning' | 'critical';
  message: string;
  run_id: string | null;
}

export interface WireRoi {
  method: RoiMethod;
  reason: string;
  correlation: number | null;
  savings_fraction: number;
  savings_to_date_usd: number;
  projected_12_month_savings_usd: number;
}

/** Per-project figures the list endpoint adds when the server computes them (src/insights). */
export interface WireProjectSummary {
  runs: number;
  learning?: { completed_runs: number; required_runs: number } | null;
  last_run: {
    id: string;
    status: string | null;
    started_at: number | null;
    runtime_minutes: number | null;
  } | null;
  cost_per_run_usd: number | null;
  runtime_minutes: number | null;
  sla_hit_rate: number | null;
  roi: WireRoi | null;
  insights: WireInsight[];
}

export interface Project {
  id: string;
  name: string;
  description: string | null;
  workspace_id: string | null;
  job_id: string | null;
  cluster_key: string | null;
  app_id: string | null;
  settings: Partial<ProjectSettings>;
  phase: ProjectPhase;
  /** When learning last restarted: earlier runs stay as history but no longer teach the optimizer. */
  learning_reset_at?: number | null;
  created_at: number;
  updated_at: number;
  summary?: WireProjectSummary | null;
}

export interface ClusterFactsWire {
  nodeTypeId?: string | null;
  driverNodeTypeId?: string | null;
  workers?: number | null;
  autoscale?: { minWorkers: number; maxWorkers: number } | null;
  photon?: boolean | null;
  availability?: string | null;
  sparkVersion?: string | null;
}

export interface Run {
  id: string;
  project_id: string;
  external_run_id: string;
  pipeline_state: string;
  status: string | null;
  started_at: number | null;
  ended_at: number | null;
  cluster: ClusterFactsWire | null;
  cluster_config: Record<string, unknown> | null;
  eventlog_uri: string | null;
  eventlog_bytes: number | null;
  input_bytes: number | null;
  cost: { currency: 'USD'; total_usd: number; lines: Array<{ item: string; usd: number }> } | null;
  on_recommendation_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ProfileSummary {
  applicationId: string | null;
  applicationName: string | null;
  sparkVersion: string | null;
  durationMs: number | null;
  jobs: number;
  failedJobs: number;
  stages: number;
  tasks: number;
  executorsMax: number;
  coresPerExecutor: number;
  inputBytes: number;
  shuffleReadBytes: number;
  shuffleWriteBytes: number;
  spillBytes: number;
  utilization: number;
  gcTimeMs?: number;
  executorRunTimeMs?: number;
  platform: string;
  findings: Array<{ id: string; severity: string; message: string }>;
}

export interface RunDetail extends Run {
  cluster_timeline: unknown;
  profile_summary: ProfileSummary | null;
}

export interface Range {
  low: number;
  mid: number;
  high: number;
}

export interface Recommendation {
  id: string;
  project_id: string;
  state: 'PENDING' | 'SUCCESS' | 'FAILURE';
  phase: string | null;
  configuration: Record<string, unknown> | null;
  predicted: { runtime_minutes: Range; cost_usd: Range } | null;
  explanation: string | null;
  based_on_run_id: string | null;
  error: string | null;
  requested_by: string;
  applied: { requested_at: number; requested_by: string | null } | null;
  created_at: number;
  updated_at: number;
}

export interface Workspace {
  id: string;
  name: string;
  platform: string;
  cloud: string;
  region: string | null;
  host: string | null;
  plan_type: string | null;
  compute_type: string | null;
  has_credentials: boolean;
  has_webhook_credentials: boolean;
  created_at: number;
  updated_at: number;
}

export interface AccessCheckLine {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

export interface ApiKey {
  id: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface OrganizationSummary {
  period: { from: number; to: number };
  spend: { cloud_usd: number; dbu_usd: number; total_usd: number };
  roi: {
    savings_to_date_usd: number;
    projected_12_month_savings_usd: number;
    methods: Record<RoiMethod, number>;
  };
}

export interface DiscoverFinding {
  id: string;
  title: string;
  description: string;
  job_ids: string[];
}

export interface DiscoveredJob {
  job_id: string;
  name: string;
  creator: string | null;
  compute: string;
  photon: boolean;
  autoscaling: boolean;
  runs_in_period: number;
  core_hours: number;
  estimated_cost_usd: number | null;
  /** Already a Setpoint project. */
  imported: boolean;
  /** Which project, when the projects list names it (a job with two clusters has the first here). */
  imported_project_id: string | null;
}

export interface DiscoverReport {
  workspace_id: string;
  generated_at: number;
  findings: DiscoverFinding[];
  jobs: DiscoveredJob[];
  timeline: Array<{ date: string; jobs: number; core_hours: number }>;
}

/** `GET /api/v1/organization/settings`: discounts in percent off list prices, defaults for new projects. */
export interface OrganizationSettings {
  aws_discount_pct: number;
  azure_discount_pct: number;
  gcp_discount_pct: number;
  dbu_discount_pct: number;
  default_sla_minutes: number | null;
  default_preference: 'economy' | 'balanced' | 'performance';
  default_auto_apply: boolean;
  updated_at: number | null;
  updated_by: string | null;
}

/** `GET /api/v1/projects/:id/applied-configs`: every cluster Setpoint wrote into the job, oldest first. */
export interface AppliedConfig {
  id: string;
  recommendation_id: string | null;
  /** `baseline` (the job's own cluster when imported), `apply`, `auto-apply`, `rollback`, `revert`. */
  kind: string;
  cluster: Record<string, unknown>;
  actor: string;
  reason: string;
  created_at: number;
}
