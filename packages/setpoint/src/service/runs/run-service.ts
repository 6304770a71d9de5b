import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { JobQueue } from '../../queue/job-queue.js';
import type { OutboundAllowList } from '../../security/address-policy.js';
import { assertFetchableUrl } from '../../security/ssrf-guard.js';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import { newId } from '../../store/ids.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import {
  eventLogBundle,
  type PipelineState,
  type Run,
  type RunCost,
  type RunDetail,
  type RunRecord,
  summarizeProfile,
  toRun,
} from './run-records.js';
import type { NewRunRecord, RunRepository } from './run-repository.js';

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

function newRun(input: NewRunCommon, id: string, state: PipelineState): NewRunRecord {
  const now = Date.now();
  const record: RunRecord = {
    id,
    projectId: input.projectId,
    externalRunId: input.externalRunId,
    pipelineState: state,
    status: input.status ?? null,
    startedAt: null,
    endedAt: null,
    cluster: null,
    clusterTimeline: null,
    eventlogUri: null,
    eventlogBlobKey: null,
    eventlogBytes: null,
    cost: null,
    inputBytes: null,
    recommendationId: null,
    error: input.incompleteReason ?? null,
    createdAt: now,
    updatedAt: now,
  };
  return { record, clusterReport: input.clusterReport };
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
    const record = await runs.findByExternalId(projectId, externalRunId);
    return record ? toRun(record) : undefined;
  }

  /** Inserts the run unless (project, external run id) exists; a lost race returns the winner. */
  async function insertOnce(run: NewRunRecord): Promise<{ run: Run; created: boolean }> {
    const { record } = run;
    if (await runs.insertOnce(run)) return { run: toRun(record), created: true };
    const existing = await findExisting(record.projectId, record.externalRunId);
    if (!existing)
      throw new ConflictError('RUN_CONFLICT', `run ${record.externalRunId} could not be recorded`);
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
      const run = newRun(input, id, 'PARSING');
      run.record.eventlogBlobKey = bundle;
      run.record.eventlogBytes = input.files.reduce((sum, file) => sum + file.bytes, 0);
      const result = await insertOnce(run);
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
      const run = newRun(input, id, 'PARSING');
      run.profile = input.profile;
      run.record.inputBytes = input.profile.totals.inputBytes;
      const result = await insertOnce(run);
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
      const cost = (await runs.findInProject(projectId, runId))?.cost;
      if (!cost) return false;
      const next = revise(cost);
      if (!next) return false;
      await runs.update(runId, { cost: next });
      return true;
    },

    /** A run whose event log never arrived: kept with its cluster report and the reason, not analyzed. */
    async createWithoutEventLog(
      input: NewRunCommon & { incompleteReason: string },
    ): Promise<{ run: Run; created: boolean }> {
      await projects.assertExists(input.projectId);
      const existing = await findExisting(input.projectId, input.externalRunId);
      if (existing) return { run: existing, created: false };
      return insertOnce(newRun(input, newId('run'), 'FAILED'));
    },

    /** An event log to fetch: validated against SSRF rules now, downloaded by the ingest job. */
    async createFromUri(
      input: NewRunCommon & { eventlogUri: string },
    ): Promise<{ run: Run; created: boolean }> {
      assertFetchableUrl(input.eventlogUri, outboundAllowList);
      await projects.assertExists(input.projectId);
      const run = newRun(input, newId('run'), 'INGESTING');
      const { id } = run.record;
      run.record.eventlogUri = input.eventlogUri;
      const result = await insertOnce(run);
      if (result.created) {
        await queue.enqueue('run.ingest', { runId: id }, { idempotencyKey: `run.ingest:${id}` });
      }
      return result;
    },

    async list(
      projectId: string,
      page: { limit: number; offset: number },
    ): Promise<{ items: Run[]; total: number }> {
      await projects.assertExists(projectId);
      const { records, total } = await runs.page(projectId, page);
      return { items: records.map(toRun), total };
    },

    /** The run's parsed event log (null before it was parsed, or for a run without one). */
    async profile(projectId: string, runId: string): Promise<RunProfile | null> {
      const record = await runs.findInProject(projectId, runId);
      if (!record)
        throw new NotFoundError('RUN_NOT_FOUND', `run ${runId} does not exist in project ${projectId}`);
      return (await runs.inputsOf(runId))?.profile ?? null;
    },

    async get(projectId: string, runId: string): Promise<RunDetail> {
      const record = await runs.findInProject(projectId, runId);
      if (!record)
        throw new NotFoundError('RUN_NOT_FOUND', `run ${runId} does not exist in project ${projectId}`);
      const profile = (await runs.inputsOf(runId))?.profile ?? null;
      return { ...toRun(record), profileSummary: profile ? summarizeProfile(profile) : null };
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
