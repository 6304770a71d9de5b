import type { CostComponent } from '@setpoint/api-contract';
import { coreTimeOnCpu } from '../../eventlog/analysis/run-analysis.js';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { RunProfile } from '../../eventlog/run-profile.js';

export const pipelineStates = ['INGESTING', 'PARSING', 'COSTING', 'MODELING', 'DONE', 'FAILED'] as const;
export type PipelineState = (typeof pipelineStates)[number];

/** The cluster a run used, from its platform's cluster report or else the event log's hints. */
export interface ClusterFacts {
  source: 'cluster_report' | 'eventlog';
  cloud: string | null;
  region: string | null;
  nodeTypeId: string | null;
  driverNodeTypeId: string | null;
  workers: number | null;
  autoscale: { minWorkers: number; maxWorkers: number } | null;
  photon: boolean | null;
  /** The market as the platform names it, e.g. SPOT_WITH_FALLBACK, ON_DEMAND. */
  availability: string | null;
  sparkVersion: string | null;
  /**
   * The node types that really ran, where the platform launched others than the configuration names (an
   * alternate of a Databricks flexible node type): each role's type by most node-minutes. Absent or null:
   * the configured types ran, or nothing says otherwise.
   */
  ranOn?: { nodeTypeId: string | null; driverNodeTypeId: string | null } | null;
}

/** What the facts were read from: the platform's configuration of the cluster, when a report gave it. */
export interface StoredClusterFacts {
  facts: ClusterFacts;
  config: Record<string, unknown> | null;
}

/** What a run cost, as stored with it and shown: the total, its bounds and its typed components. */
export interface RunCost {
  currency: 'USD';
  totalUsd: number;
  /** Bounds of the total (spot and autoscaling uncertainty). */
  lowUsd: number;
  highUsd: number;
  /** Sum to `totalUsd`; totals everywhere add them up by kind (`@setpoint/api-contract` `CostComponent`). */
  components: CostComponent[];
  /**
   * The part of the total billed outside the Spark application's span, when the platform bills more than
   * it (an EMR cluster launched for the run: provisioning, bootstrap, idle and termination): how long and
   * what it cost. It does not scale with the run's runtime; the optimizer prices it at each configuration's
   * own rate (`docs/emr.md`, cost basis). Absent or null: no part of it is known to be
   * outside the span (null also marks a run costed before the split whose split could not be recovered:
   * `overhead-backfill.ts`).
   */
  overhead?: RunOverheadCost | null;
  /**
   * The amount is not known yet (a serverless run before its bill, with no billed run of its job to estimate
   * from): `totalUsd` is 0 and is never a cost; the reason says what is awaited. Every reader but the
   * recommender sees such a run as not costed (`toRun`). Null once the bill replaced it (the amount was never
   * estimated); absent when the cost never waited.
   */
  pending?: { reason: string } | null;
}

/** A run's billed time outside its Spark application, and what that time cost. */
export interface RunOverheadCost {
  seconds: number;
  usd: number;
}

/**
 * A run as the run repository returns it: every column typed and its JSON read, without the profile and
 * the cluster report (large, read only by the steps that describe and cost the run: `RunInputs`).
 */
export interface RunRecord {
  id: string;
  projectId: string;
  externalRunId: string;
  pipelineState: PipelineState;
  status: string | null;
  startedAt: number | null;
  endedAt: number | null;
  /** What the parse step read of the run's cluster; null until then. */
  cluster: StoredClusterFacts | null;
  /** The node timeline the platform reconstructed (what the coster prices); null until parsed. */
  clusterTimeline: unknown;
  eventlogUri: string | null;
  eventlogBlobKey: string | null;
  eventlogBytes: number | null;
  /** As stored: a cost still pending its bill too (`RunCost.pending`). */
  cost: RunCost | null;
  inputBytes: number | null;
  recommendationId: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A profiled and costed run with what the model reads of its profile: what a recommendation learns from. */
export interface AnalyzedRunRecord extends RunRecord {
  cost: RunCost;
  modelProfile: ModelProfile;
}

/** What describing and costing a run read besides its record. */
export interface RunInputs {
  /** The profile as stored (from the event log, or given with the run); null before the parse step. */
  profile: RunProfile | null;
  /** The platform's cluster report, as sent; null when none came. */
  clusterReport: unknown;
}

/** What a step or a service writes to a run; the repository stores it (`updatedAt` is set with it). */
export interface RunChanges {
  pipelineState?: PipelineState;
  status?: string | null;
  startedAt?: number | null;
  endedAt?: number | null;
  cluster?: StoredClusterFacts;
  clusterTimeline?: unknown;
  /** Stored within the profile caps, with what the model reads of it (`stored-profile.ts`). */
  profile?: RunProfile;
  cost?: RunCost;
  inputBytes?: number | null;
  recommendationId?: string | null;
  eventlogBlobKey?: string;
  eventlogBytes?: number;
  error?: string | null;
}

/**
 * A run as the API shows it: its record with the cluster's facts and configuration apart, and a pending
 * cost as none.
 */
export interface Run extends Omit<RunRecord, 'cluster' | 'eventlogBlobKey' | 'cost'> {
  clusterConfig: Record<string, unknown> | null;
  clusterFacts: ClusterFacts | null;
  /** Null when not costed, or while its cost is pending (`costPending` then says why). */
  cost: RunCost | null;
  /** Why the run's cost is not known yet (its platform's bill has not arrived); null otherwise. */
  costPending: string | null;
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
  /** Core time in tasks: task time ÷ the executors' core time. */
  utilization: number;
  /** Core time on CPU: executor CPU time ÷ the executors' core time (null: no executor cores in the log). */
  coreTimeOnCpu: number | null;
  gcTimeMs: number;
  executorRunTimeMs: number;
  platform: string;
  findings: Array<{ id: string; severity: string; message: string }>;
}

export interface RunDetail extends Run {
  profileSummary: ProfileSummary | null;
}

export function toRun(record: RunRecord): Run {
  const { cost } = record;
  return {
    id: record.id,
    projectId: record.projectId,
    externalRunId: record.externalRunId,
    pipelineState: record.pipelineState,
    status: record.status,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
    clusterConfig: record.cluster?.config ?? null,
    clusterFacts: record.cluster?.facts ?? null,
    clusterTimeline: record.clusterTimeline,
    eventlogUri: record.eventlogUri,
    eventlogBytes: record.eventlogBytes,
    inputBytes: record.inputBytes,
    cost: cost?.pending ? null : cost,
    costPending: cost?.pending?.reason ?? null,
    recommendationId: record.recommendationId,
    error: record.error,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function summarizeProfile(profile: RunProfile): ProfileSummary {
  return {
    applicationId: profile.application.id,
    applicationName: profile.application.name,
    sparkVersion: profile.application.sparkVersion,
    durationMs: profile.application.durationMs,
    jobs: profile.totals.jobs,
    failedJobs: profile.totals.failedJobs,
    stages: profile.totals.stages,
    tasks: profile.totals.tasks,
    executorsMax: profile.executors.maxConcurrent,
    coresPerExecutor: profile.executors.coresPerExecutor,
    inputBytes: profile.totals.inputBytes,
    shuffleReadBytes: profile.totals.shuffleReadBytes,
    shuffleWriteBytes: profile.totals.shuffleWriteBytes,
    spillBytes: profile.totals.diskBytesSpilled,
    utilization: profile.analysis.utilization,
    coreTimeOnCpu: coreTimeOnCpu(profile),
    gcTimeMs: profile.totals.jvmGcTimeMs,
    executorRunTimeMs: profile.totals.executorRunTimeMs,
    platform: profile.platform.kind,
    findings: profile.findings.map(({ id, severity, message }) => ({ id, severity, message })),
  };
}

/** Where a run's event-log files live in the blob store. */
export const eventLogBundle = (runId: string) => `runs/${runId}/eventlog`;

/** A run's place in a project's run order (created_at, then id). */
export interface RunMarker {
  createdAt: number;
  id: string;
}

/** Whether run `a` comes before run `b` in a project's run order. */
export const runComesBefore = (a: RunMarker, b: RunMarker) =>
  a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
