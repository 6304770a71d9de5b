import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { JobQueue } from '../../queue/job-queue.js';
import type { OutboundAllowList } from '../../security/address-policy.js';
import { assertFetchableUrl } from '../../security/ssrf-guard.js';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import { newId } from '../../store/ids.js';
import { parseJsonColumn } from '../../store/json-column.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { RunCost } from './run-records.js';
import {
  eventLogBundle,
  type PipelineState,
  type Run,
  type RunDetail,
  type RunRow,
  summarizeProfile,
  toRun,
} from './run-records.js';
import type { RunRepository } from './run-repository.js';

export type { Run, RunDetail } from './run-records.js';

export interface UploadedFile {
  name: string;
  path: string;
  bytes: number;
}

export interface NewRunCommon {
  projectId: string;
  externalRunId: string;
  /** The platform's cluster report, already validated by the platform; stored as sent. */
  clusterReport: unknown;
  status?: string | null | undefined;
  /** Why the run's data is incomplete (a cut-off or missing event log), shown as the run's error. */
  incompleteReason?: string | undefined;
}

function newRow(input: NewRunCommon, id: string, state: PipelineState): RunRow {
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
    cluster_report:
      input.clusterReport === null || input.clusterReport === undefined
        ? null
        : JSON.stringify(input.clusterReport),
    eventlog_uri: null,
    eventlog_blob_key: null,
    eventlog_bytes: null,
    profile: null,
    model_profile: null,
    cost: null,
    input_bytes: null,
    recommendation_id: null,
    error: input.incompleteReason ?? null,
    created_at: now,
    updated_at: now,
  };
}

export function createRunService({
  runs,
  projects,
  blobs,
  queue,
  outboundAllowList,
}: {
  runs: RunRepository;
  projects: Pick<ProjectRepository, 'assertExists'>;
  blobs: Pick<BlobStore, 'putFile'>;
  queue: Pick<JobQueue, 'enqueue'>;
  /** Hosts and networks an `eventlog_uri` may name although they are not public. */
  outboundAllowList: OutboundAllowList;
}) {
  async function findExisting(projectId: string, externalRunId: string): Promise<Run | undefined> {
    const row = await runs.findByExternalId(projectId, externalRunId);
    return row ? toRun(row) : undefined;
  }

  /** Inserts the run unless (project, external run id) exists; a lost race returns the winner. */
  async function insertOnce(row: RunRow): Promise<{ run: Run; created: boolean }> {
    if (await runs.insertOnce(row)) return { run: toRun(row), created: true };
    const existing = await findExisting(row.project_id, row.external_run_id);
    if (!existing)
      throw new ConflictError('RUN_CONFLICT', `run ${row.external_run_id} could not be recorded`);
    return { run: existing, created: false };
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
      await projects.assertExists(input.projectId);
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

    /**
     * A run described without an event log (a platform's own telemetry, e.g. Databricks system tables):
     * its profile is stored as given and the pipeline describes, costs and models it like any other.
     */
    async createWithProfile(
      input: NewRunCommon & { profile: RunProfile },
    ): Promise<{ run: Run; created: boolean }> {
      await projects.assertExists(input.projectId);
      const existing = await findExisting(input.projectId, input.externalRunId);
      if (existing) return { run: existing, created: false };
      const id = newId('run');
      const row = newRow(input, id, 'PARSING');
      row.profile = JSON.stringify(input.profile);
      row.input_bytes = input.profile.totals.inputBytes;
      const result = await insertOnce(row);
      if (result.created)
        await queue.enqueue('run.parse', { runId: id }, { idempotencyKey: `run.parse:${id}` });
      return result;
    },

    /**
     * A platform learned what the run really cost (its bill): the stored cost is replaced, so spend,
     * savings and ROI use it. `revise` answers undefined to leave the cost as it is.
     */
    async reviseCost(
      projectId: string,
      runId: string,
      revise: (cost: RunCost) => RunCost | undefined,
    ): Promise<boolean> {
      const row = await runs.findInProject(projectId, runId);
      const cost = parseJsonColumn<RunCost>(row?.cost ?? null);
      if (!row || !cost) return false;
      const next = revise(cost);
      if (!next) return false;
      await runs.update(runId, { cost: JSON.stringify(next) });
      return true;
    },

    /** A run whose event log never arrived: kept with its cluster report and the reason, not analyzed. */
    async createWithoutEventLog(
      input: NewRunCommon & { incompleteReason: string },
    ): Promise<{ run: Run; created: boolean }> {
      await projects.assertExists(input.projectId);
      const existing = await findExisting(input.projectId, input.externalRunId);
      if (existing) return { run: existing, created: false };
      return insertOnce(newRow(input, newId('run'), 'FAILED'));
    },

    /** An event log to fetch: validated against SSRF rules now, downloaded by the ingest job. */
    async createFromUri(
      input: NewRunCommon & { eventlogUri: string },
    ): Promise<{ run: Run; created: boolean }> {
      assertFetchableUrl(input.eventlogUri, outboundAllowList);
      await projects.assertExists(input.projectId);
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
      await projects.assertExists(projectId);
      const { rows, total } = await runs.page(projectId, page);
      return { items: rows.map(toRun), total };
    },

    /** The run's parsed event log (null before it was parsed, or for a run without one). */
    async profile(projectId: string, runId: string): Promise<RunProfile | null> {
      const row = await runs.findInProject(projectId, runId);
      if (!row)
        throw new NotFoundError('RUN_NOT_FOUND', `run ${runId} does not exist in project ${projectId}`);
      return parseJsonColumn<RunProfile>(row.profile);
    },

    async get(projectId: string, runId: string): Promise<RunDetail> {
      const row = await runs.findInProject(projectId, runId);
      if (!row)
        throw new NotFoundError('RUN_NOT_FOUND', `run ${runId} does not exist in project ${projectId}`);
      const profile = parseJsonColumn<RunProfile>(row.profile);
      return { ...toRun(row), profileSummary: profile ? summarizeProfile(profile) : null };
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
