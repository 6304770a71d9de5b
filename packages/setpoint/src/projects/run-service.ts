import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { Kysely, Selectable } from 'kysely';
import type { RunProfile } from '../eventlog/run-profile.js';
import type { JobQueue } from '../queue/job-queue.js';
import { assertFetchableUrl } from '../security/ssrf-guard.js';
import type { BlobStore } from '../store/blobs/blob-store.js';
import type { Database, RunsTable } from '../store/database-schema.js';
import { newId, parseJsonColumn } from './ids.js';
import type { ClusterFacts, RunCost } from './ports.js';
import type { ClusterReport } from './schema.js';

export const pipelineStates = ['INGESTING', 'PARSING', 'COSTING', 'MODELING', 'DONE', 'FAILED'] as const;
export type PipelineState = (typeof pipelineStates)[number];

export interface Run {
  id: string;
  projectId: string;
  externalRunId: string;
  pipelineState: PipelineState;
  status: string | null;
  startedAt: number | null;
  endedAt: number | null;
  clusterConfig: Record<string, unknown> | null;
  clusterFacts: ClusterFacts | null;
  clusterTimeline: unknown;
  eventlogUri: string | null;
  eventlogBytes: number | null;
  inputBytes: number | null;
  cost: RunCost | null;
  recommendationId: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface RunDetail extends Run {
  profileSummary: ProfileSummary | null;
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
  platform: string;
  findings: Array<{ id: string; severity: string; message: string }>;
}

export interface StoredClusterFacts {
  facts: ClusterFacts;
  config: Record<string, unknown> | null;
}

export function toRun(row: Selectable<RunsTable>): Run {
  const stored = parseJsonColumn<StoredClusterFacts>(row.cluster_config);
  return {
    id: row.id,
    projectId: row.project_id,
    externalRunId: row.external_run_id,
    pipelineState: row.pipeline_state as PipelineState,
    status: row.status,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    clusterConfig: stored?.config ?? null,
    clusterFacts: stored?.facts ?? null,
    clusterTimeline: parseJsonColumn(row.cluster_timeline),
    eventlogUri: row.eventlog_uri,
    eventlogBytes: row.eventlog_bytes,
    inputBytes: row.input_bytes,
    cost: parseJsonColumn<RunCost>(row.cost),
    recommendationId: row.recommendation_id,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
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
    platform: profile.platform.kind,
    findings: profile.findings.map(({ id, severity, message }) => ({ id, severity, message })),
  };
}

export interface UploadedFile {
  name: string;
  path: string;
  bytes: number;
}

export interface NewRunCommon {
  projectId: string;
  externalRunId: string;
  clusterReport: ClusterReport | null;
  status?: string | null | undefined;
  /** Why the run's data is incomplete (a cut-off or missing event log), shown as the run's error. */
  incompleteReason?: string | undefined;
}

/** Every run column but the (large) profile: what lists read. */
export const runListColumns = [
  'id',
  'project_id',
  'external_run_id',
  'pipeline_state',
  'status',
  'started_at',
  'ended_at',
  'cluster_config',
  'cluster_timeline',
  'cluster_report',
  'eventlog_uri',
  'eventlog_blob_key',
  'eventlog_bytes',
  'cost',
  'input_bytes',
  'recommendation_id',
  'error',
  'created_at',
  'updated_at',
] as const;

export const eventLogBundle = (runId: string) => `runs/${runId}/eventlog`;

export function createRunService({
  db,
  blobs,
  queue,
  allowPrivateEventLogUris,
}: {
  db: Kysely<Database>;
  blobs: Pick<BlobStore, 'putFile'>;
  queue: Pick<JobQueue, 'enqueue'>;
  allowPrivateEventLogUris: boolean;
}) {
  async function assertProject(projectId: string) {
    const found = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
    if (!found) throw new NotFoundError('PROJECT_NOT_FOUND', `project ${projectId} does not exist`);
  }

  async function findExisting(projectId: string, externalRunId: string) {
    const row = await db
      .selectFrom('runs')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('external_run_id', '=', externalRunId)
      .executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** Inserts the run unless (project, external run id) exists; a lost race returns the winner. */
  async function insertOnce(values: Selectable<RunsTable>): Promise<{ run: Run; created: boolean }> {
    const inserted = await db
      .insertInto('runs')
      .values(values)
      .onConflict((conflict) => conflict.columns(['project_id', 'external_run_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { run: toRun(values), created: true };
    const existing = await findExisting(values.project_id, values.external_run_id);
    if (!existing)
      throw new ConflictError('RUN_CONFLICT', `run ${values.external_run_id} could not be recorded`);
    return { run: existing, created: false };
  }

  function newRow(input: NewRunCommon, id: string, state: PipelineState): Selectable<RunsTable> {
    const now = Date.now();
    return {
      id,
      project_id: input.projectId,
      external_run_id: input.externalRunId,
      pipeline_state: state,
      status: input.status ?? null,
      started_at: null,
      ended_at: null,
      cluster_config: null,
      cluster_timeline: null,
      cluster_report: input.clusterReport ? JSON.stringify(input.clusterReport) : null,
      eventlog_uri: null,
      eventlog_blob_key: null,
      eventlog_bytes: null,
      profile: null,
      cost: null,
      input_bytes: null,
      recommendation_id: null,
      error: input.incompleteReason ?? null,
      created_at: now,
      updated_at: now,
    };
  }

  return {
    findExisting,

    /**
     * An uploaded event log: files go to the blob store first, then the run row (idempotent on the
     * external run id), then the parse job. A retried upload returns the first run unchanged.
     */
    async createFromUpload(
      input: NewRunCommon & { files: UploadedFile[] },
    ): Promise<{ run: Run; created: boolean }> {
      await assertProject(input.projectId);
      const existing = await findExisting(input.projectId, input.externalRunId);
      if (existing) return { run: existing, created: false };
      const id = newId('run');
      const bundle = eventLogBundle(id);
      for (const file of input.files) await blobs.putFile(bundle, file.name, file.path);
      const row = newRow(input, id, 'PARSING');
      row.eventlog_blob_key = bundle;
      row.eventlog_bytes = input.files.reduce((sum, file) => sum + file.bytes, 0);
      const result = await insertOnce(row);
      if (result.created)
        await queue.enqueue('run.parse', { runId: id }, { idempotencyKey: `run.parse:${id}` });
      return result;
    },

    /** A run whose event log never arrived: kept with its cluster report and the reason, not analyzed. */
    async createWithoutEventLog(
      input: NewRunCommon & { incompleteReason: string },
    ): Promise<{ run: Run; created: boolean }> {
      await assertProject(input.projectId);
      const existing = await findExisting(input.projectId, input.externalRunId);
      if (existing) return { run: existing, created: false };
      return insertOnce(newRow(input, newId('run'), 'FAILED'));
    },

    /** An event log to fetch: validated against SSRF rules now, downloaded by the ingest job. */
    async createFromUri(
      input: NewRunCommon & { eventlogUri: string },
    ): Promise<{ run: Run; created: boolean }> {
      assertFetchableUrl(input.eventlogUri, allowPrivateEventLogUris);
      await assertProject(input.projectId);
      const row = newRow(input, newId('run'), 'INGESTING');
      row.eventlog_uri = input.eventlogUri;
      const result = await insertOnce(row);
      if (result.created) {
        await queue.enqueue('run.ingest', { runId: row.id }, { idempotencyKey: `run.ingest:${row.id}` });
      }
      return result;
    },

    async list(
      projectId: string,
      page: { limit: number; offset: number },
    ): Promise<{ items: Run[]; total: number }> {
      await assertProject(projectId);
      const base = db.selectFrom('runs').where('project_id', '=', projectId);
      const [rows, count] = await Promise.all([
        base
          .select(runListColumns)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => toRun({ ...row, profile: null })), total: Number(count.count) };
    },

    async get(projectId: string, runId: string): Promise<RunDetail> {
      const row = await db
        .selectFrom('runs')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', runId)
        .executeTakeFirst();
      if (!row)
        throw new NotFoundError('RUN_NOT_FOUND', `run ${runId} does not exist in project ${projectId}`);
      const profile = parseJsonColumn<RunProfile>(row.profile);
      return { ...toRun(row), profileSummary: profile ? summarizeProfile(profile) : null };
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
