import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Migration } from 'kysely';
import type { SetpointConfig } from '../config/schema.js';
import type { RunProfile } from '../eventlog/run-profile.js';
import type { Logger } from '../logging/logger.js';
import type { PriceCatalog } from '../pricing/price-catalog.js';
import type { InstanceTypeEntry } from '../pricing/schema.js';
import type { JobHandlers, JobQueue } from '../queue/job-queue.js';
import type { ApplyService } from '../service/apply/apply-service.js';
import type { ApplyWriter } from '../service/apply/apply-writer.js';
import type { AuditService } from '../service/audit/audit-service.js';
import type { PlatformCode } from '../service/code/platform-code.js';
import type { PlatformConnector } from '../service/connections/platform-connector.js';
import type { FormFactorAdviser } from '../service/form-factor/form-factor-service.js';
import type { ProjectService } from '../service/projects/project-service.js';
import type { RecommendationService } from '../service/recommendations/recommendation-service.js';
import type { Recommender } from '../service/recommender/recommender.js';
import type { RunCoster } from '../service/runs/run-analysis.js';
import type { ClusterFacts } from '../service/runs/run-records.js';
import type { RunService } from '../service/runs/run-service.js';
import type { WorkspaceService } from '../service/workspaces/workspace-service.js';
import type { Database } from '../store/database-schema.js';
import type { DialectName } from '../store/dialect.js';

/**
 * The boundary between Setpoint's core and a platform (Databricks, EMR). The core knows workspaces,
 * projects, runs and recommendations; a platform knows how its clusters are reported, priced, searched,
 * collected and changed. The plugin is what the composition root needs before the core's services exist
 * (its tables and job kinds) and how to create the platform's runtime; everything else in the core (the
 * pipeline, the services, the routes) reaches a platform through its `PlatformRuntime`, one door, and
 * never through the plugin. Nothing in the core names a platform.
 */
export interface PlatformPlugin {
  /** The `workspaces.platform` value of the workspaces it manages. */
  readonly name: string;
  /**
   * Migrations of the tables the platform owns, keyed by name. The names take their place in the one
   * numbered sequence the core's migrations use, so existing databases see the same order.
   */
  migrations(dialect: DialectName): Record<string, Migration>;
  /** The job kinds it queues and runs (declared up front: pg-boss creates a queue per kind). */
  readonly jobKinds: readonly string[];
  /** Its runtime, once the core services exist. */
  create(core: PlatformCore): PlatformRuntime;
}

/** A run of the platform as the pipeline stores it. */
export interface RunDescription {
  facts: ClusterFacts;
  /** The platform's configuration of the cluster (e.g. a Databricks `new_cluster`), when reported. */
  configuration: Record<string, unknown> | null;
  /** The cluster's instances over the run: what the run is priced from and the dashboard draws. */
  timeline: unknown;
  startedAt: number | null;
  endedAt: number | null;
  /** The outcome the platform reported (e.g. its tasks' result states), else null. */
  status: string | null;
  /** The Setpoint recommendation the cluster was configured from, when it carries that tag. */
  recommendationId: string | null;
}

export interface RunReportReader {
  /** Validates an uploaded cluster report at the edge (ValidationError on bad input); the result is stored. */
  parseClusterReport(raw: unknown): unknown;
  /** The run's cluster from its stored report (null when none came) and its parsed event log. */
  describeRun(report: unknown, profile: RunProfile): RunDescription;
}

/**
 * Clients for hosts a user configured (a workspace's host, its S3 endpoint), with Setpoint's SSRF
 * rule applied at connect time and on every redirect hop; the allow-list comes from the settings.
 */
export interface OutboundClients {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  nodeAgents(): { httpAgent: HttpAgent; httpsAgent: HttpsAgent };
  /** The address rule for a URL a user stores (`field` names it in the error), before it is stored. */
  assertConfigurable(url: string, field: string): Promise<void>;
}

/** What the core gives a platform: its services, never its tables. */
export interface PlatformCore {
  /** For the platform's own repositories, over its own tables (`db.withTables<…>()`). */
  db: Kysely<Database>;
  config: SetpointConfig;
  queue: Pick<JobQueue, 'enqueue'>;
  projects: ProjectService;
  workspaces: WorkspaceService;
  runs: RunService;
  recommendations: RecommendationService;
  catalog: PriceCatalog;
  /** Instance types of the catalog, newest import first. */
  nodeTypes: readonly InstanceTypeEntry[];
  scratchDir: string;
  logger: Logger;
  /** Every request to a workspace host or S3 endpoint goes through these. */
  outbound: OutboundClients;
  /** The URL the platform can reach this server at (webhook destinations); known once it listens. */
  publicUrl(): string;
  /**
   * What the platform observes that nobody did through Setpoint (a cluster edited in the platform's
   * own UI) goes into the audit trail; alert rules watch it from there (`external_change`). A platform reads
   * back its own entries (a person's decision on a proposal it made).
   */
  audit: Pick<AuditService, 'record' | 'page'>;
  /**
   * The apply core: a platform records the configuration it found when a project was linked (`baseline`)
   * and tells the SLA guard of each finished run on a project's cluster (`runFinished`).
   */
  applies: ApplyService;
}

/** Work a platform runs on a schedule, e.g. polling for runs no webhook announced. */
export interface PlatformSchedule {
  name: string;
  everySeconds: number;
  /** `bucket` names the period, so a run queued twice in one period is one job. */
  run(bucket: string): Promise<void>;
}

export interface PlatformRuntime {
  readonly name: string;
  /** How it reads what a run reports about its cluster (at upload, and when the pipeline parses the run). */
  readonly runs: RunReportReader;
  /** Handlers of its `jobKinds`. */
  handlers: Partial<JobHandlers>;
  /** Its HTTP routes (webhook receivers, discovery, import, collection). */
  routes: FastifyPluginAsyncZod;
  /** Prices its runs (its billing and its cluster reports). */
  coster: RunCoster;
  /** Recommends for its projects (its cluster shapes, candidates and candidate filters). */
  recommender: Recommender;
  /**
   * How the apply core writes its projects' clusters: locate, plan, write, undo, export. The core owns
   * the history, the guard, auto-apply, rollback and the SLA guard's revert.
   */
  writer: ApplyWriter;
  schedules: PlatformSchedule[];
  /**
   * How its accounts are connected through the one connect route set (`/api/v1/connections`): its
   * settings' schema, sign-in, access check and description; the core owns the lifecycle.
   */
  connector: PlatformConnector;
  /** Where its jobs' configuration lives in code and how a recommendation reads there (absent: no mapping). */
  code?: PlatformCode;
  /** What the same job would cost in the other form (cluster or serverless), for its projects (absent: none). */
  formFactor?: FormFactorAdviser;
  /**
   * Signs in to a workspace before it is registered (nothing is stored): whether its host answered and
   * accepted the credentials, as one line of an access check. Absent: the platform has no such check.
   */
  checkSignIn?(target: SignInTarget): Promise<SignInLine>;
}

/** What a workspace about to be registered would connect with. */
export interface SignInTarget {
  host: string;
  credentials: Record<string, string> | null;
}

/** The sign-in's outcome: `check` names what failed (`reach workspace`, `authenticate`), `fix` how to mend it. */
export interface SignInLine {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  /** Whether the host answered at all (false: down, black-holed, refused by the outbound rule). */
  reachable: boolean;
}

/** Validates a cluster report uploaded for a project with that project's platform; null stays null. */
export type ProjectClusterReportParser = (projectId: string, raw: unknown) => Promise<unknown>;
