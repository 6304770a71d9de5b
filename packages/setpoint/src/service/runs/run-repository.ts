import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import type { RunProfile } from '../../eventlog/run-profile.js';
import type { Database, RunsTable } from '../../store/database-schema.js';
import { parseJsonColumn } from '../../store/json-column.js';
import type {
  AnalyzedRunRecord,
  PipelineState,
  RunChanges,
  RunCost,
  RunInputs,
  RunMarker,
  RunRecord,
  StoredClusterFacts,
} from './run-records.js';
import { storedProfileColumns } from './stored-profile.js';

/** The columns of a `RunRecord`: every one but the profile, its model view and the cluster report. */
const recordColumns = [
  'id',
  'project_id',
  'external_run_id',
  'pipeline_state',
  'status',
  'started_at',
  'ended_at',
  'cluster_config',
  'cluster_timeline',
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

type RecordRow = Pick<Selectable<RunsTable>, (typeof recordColumns)[number]>;

function recordOf(row: RecordRow): RunRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    externalRunId: row.external_run_id,
    pipelineState: row.pipeline_state as PipelineState,
    status: row.status,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    cluster: parseJsonColumn<StoredClusterFacts>(row.cluster_config),
    clusterTimeline: parseJsonColumn<unknown>(row.cluster_timeline),
    eventlogUri: row.eventlog_uri,
    eventlogBlobKey: row.eventlog_blob_key,
    eventlogBytes: row.eventlog_bytes,
    cost: parseJsonColumn<RunCost>(row.cost),
    inputBytes: row.input_bytes,
    recommendationId: row.recommendation_id,
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Selected only where `model_profile` and `cost` are not null (`analyzedSince`). */
function analyzedRecordOf(row: RecordRow & { model_profile: string | null }): AnalyzedRunRecord {
  const record = recordOf(row);
  return {
    ...record,
    cost: record.cost as RunCost,
    modelProfile: JSON.parse(row.model_profile as string) as ModelProfile,
  };
}

/** The columns a change writes: JSON as text, the profile within its caps with its model view. */
function columnsOf(changes: RunChanges): Updateable<RunsTable> {
  const columns: Updateable<RunsTable> = {};
  if ('pipelineState' in changes) columns.pipeline_state = changes.pipelineState;
  if ('status' in changes) columns.status = changes.status;
  if ('startedAt' in changes) columns.started_at = changes.startedAt;
  if ('endedAt' in changes) columns.ended_at = changes.endedAt;
  if ('cluster' in changes) columns.cluster_config = JSON.stringify(changes.cluster);
  if ('clusterTimeline' in changes) columns.cluster_timeline = JSON.stringify(changes.clusterTimeline);
  if (changes.profile !== undefined) Object.assign(columns, storedProfileColumns(changes.profile));
  if ('cost' in changes) columns.cost = JSON.stringify(changes.cost);
  if ('inputBytes' in changes) columns.input_bytes = changes.inputBytes;
  if ('recommendationId' in changes) columns.recommendation_id = changes.recommendationId;
  if ('eventlogBlobKey' in changes) columns.eventlog_blob_key = changes.eventlogBlobKey;
  if ('eventlogBytes' in changes) columns.eventlog_bytes = changes.eventlogBytes;
  if ('error' in changes) columns.error = changes.error;
  return columns;
}

/** A new run: its record, and the profile it came with (stored as given; the parse step caps it). */
export interface NewRunRecord {
  record: RunRecord;
  profile?: RunProfile;
  /** The platform's cluster report, stored as sent. */
  clusterReport: unknown;
}

/** Data access for runs: what the run service, the pipeline and the summaries read and write. */
export function createRunRepository(db: Kysely<Database>) {
  /**
   * A project's profiled and costed runs created since `since` (what the optimizer learns from), with what
   * the model reads of their profiles (`model_profile`) and never the profiles themselves.
   */
  const analyzedSince = (projectId: string, since: number) =>
    db
      .selectFrom('runs')
      .select([...recordColumns, 'model_profile'])
      .where('project_id', '=', projectId)
      .where('model_profile', 'is not', null)
      .where('cost', 'is not', null)
      .where('created_at', '>=', since);
  const first = async (rows: Promise<RecordRow | undefined>) => {
    const row = await rows;
    return row ? recordOf(row) : undefined;
  };

  return {
    find(runId: string): Promise<RunRecord | undefined> {
      return first(db.selectFrom('runs').select(recordColumns).where('id', '=', runId).executeTakeFirst());
    },

    findInProject(projectId: string, runId: string): Promise<RunRecord | undefined> {
      return first(
        db
          .selectFrom('runs')
          .select(recordColumns)
          .where('project_id', '=', projectId)
          .where('id', '=', runId)
          .executeTakeFirst(),
      );
    },

    findByExternalId(projectId: string, externalRunId: string): Promise<RunRecord | undefined> {
      return first(
        db
          .selectFrom('runs')
          .select(recordColumns)
          .where('project_id', '=', projectId)
          .where('external_run_id', '=', externalRunId)
          .executeTakeFirst(),
      );
    },

    /** The run's stored profile and cluster report (what describing and costing it read). */
    async inputsOf(runId: string): Promise<RunInputs | undefined> {
      const row = await db
        .selectFrom('runs')
        .select(['profile', 'cluster_report'])
        .where('id', '=', runId)
        .executeTakeFirst();
      return row
        ? {
            profile: parseJsonColumn<RunProfile>(row.profile),
            clusterReport: parseJsonColumn<unknown>(row.cluster_report),
          }
        : undefined;
    },

    /** Inserts the run unless (project, external run id) exists; true when this call inserted it. */
    async insertOnce({ record, profile, clusterReport }: NewRunRecord): Promise<boolean> {
      const inserted = await db
        .insertInto('runs')
        .values({
          id: record.id,
          project_id: record.projectId,
          external_run_id: record.externalRunId,
          pipeline_state: record.pipelineState,
          status: record.status,
          started_at: record.startedAt,
          ended_at: record.endedAt,
          cluster_config: record.cluster === null ? null : JSON.stringify(record.cluster),
          cluster_timeline: record.clusterTimeline === null ? null : JSON.stringify(record.clusterTimeline),
          cluster_report:
            clusterReport === null || clusterReport === undefined ? null : JSON.stringify(clusterReport),
          eventlog_uri: record.eventlogUri,
          eventlog_blob_key: record.eventlogBlobKey,
          eventlog_bytes: record.eventlogBytes,
          profile: profile === undefined ? null : JSON.stringify(profile),
          model_profile: null,
          cost: record.cost === null ? null : JSON.stringify(record.cost),
          input_bytes: record.inputBytes,
          recommendation_id: record.recommendationId,
          error: record.error,
          created_at: record.createdAt,
          updated_at: record.updatedAt,
        })
        .onConflict((conflict) => conflict.columns(['project_id', 'external_run_id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    },

    /**
     * Processed runs (DONE or FAILED) that still hold an event log and fall outside retention: created
     * before `createdBefore`, or not among their project's `keepNewest` newest runs (0: no count limit).
     */
    async eventLogsPastRetention(rule: {
      createdBefore: number;
      keepNewest: number;
      limit: number;
    }): Promise<Array<{ id: string; eventlogBlobKey: string | null }>> {
      const processed = db
        .selectFrom('runs')
        .where('eventlog_blob_key', 'is not', null)
        .where('pipeline_state', 'in', ['DONE', 'FAILED']);
      const old = await processed
        .select(['id', 'eventlog_blob_key'])
        .where('created_at', '<', rule.createdBefore)
        .limit(rule.limit)
        .execute();
      const logOf = (row: { id: string; eventlog_blob_key: string | null }) => ({
        id: row.id,
        eventlogBlobKey: row.eventlog_blob_key,
      });
      if (rule.keepNewest === 0) return old.map(logOf);
      const ranked = db
        .selectFrom('runs')
        .select((eb) => [
          'id',
          'eventlog_blob_key',
          'pipeline_state',
          eb.fn
            .agg<number>('row_number')
            .over((over) =>
              over.partitionBy('project_id').orderBy('created_at', 'desc').orderBy('id', 'desc'),
            )
            .as('rank'),
        ])
        .as('ranked');
      const surplus = await db
        .selectFrom(ranked)
        .select(['ranked.id', 'ranked.eventlog_blob_key'])
        .where('ranked.eventlog_blob_key', 'is not', null)
        .where('ranked.pipeline_state', 'in', ['DONE', 'FAILED'])
        .where('ranked.rank', '>', rule.keepNewest)
        .limit(rule.limit)
        .execute();
      const seen = new Set(old.map((row) => row.id));
      return [...old, ...surplus.filter((row) => !seen.has(row.id))].map(logOf);
    },

    async forgetEventLog(runId: string): Promise<void> {
      await db.updateTable('runs').set({ eventlog_blob_key: null }).where('id', '=', runId).execute();
    },

    /** One page of a project's runs, newest first, without their profiles. */
    async page(projectId: string, page: { limit: number; offset: number }) {
      const base = db.selectFrom('runs').where('project_id', '=', projectId);
      const [rows, count] = await Promise.all([
        base
          .select(recordColumns)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ]);
      return { records: rows.map(recordOf), total: Number(count.count) };
    },

    /** Every run of these projects, without profiles (the summaries' input). */
    async ofProjects(projectIds: string[]): Promise<RunRecord[]> {
      if (projectIds.length === 0) return [];
      const rows = await db
        .selectFrom('runs')
        .select(recordColumns)
        .where('project_id', 'in', projectIds)
        .execute();
      return rows.map(recordOf);
    },

    /** Per project: run count and latest update, which change whenever a summary would. */
    async versions(projectIds: string[]): Promise<Map<string, string>> {
      if (projectIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('runs')
        .select((eb) => [
          'project_id',
          eb.fn.countAll<number>().as('runs'),
          eb.fn.max('updated_at').as('latest'),
        ])
        .where('project_id', 'in', projectIds)
        .groupBy('project_id')
        .execute();
      return new Map(rows.map((row) => [row.project_id, `${Number(row.runs)}:${Number(row.latest)}`]));
    },

    /**
     * Costed runs whose stored cost has no overhead part and was never looked at for one (costed before the
     * split), with what re-costing them needs.
     */
    async costedWithoutOverhead(limit: number): Promise<
      Array<
        {
          id: string;
          projectId: string;
          cost: RunCost | null;
          cluster: StoredClusterFacts | null;
        } & RunInputs
      >
    > {
      const rows = await db
        .selectFrom('runs')
        .select(['id', 'project_id', 'cost', 'profile', 'cluster_config', 'cluster_report'])
        .where('pipeline_state', '=', 'DONE')
        .where('cost', 'is not', null)
        .where('cost', 'not like', '%"overhead"%')
        .where('profile', 'is not', null)
        .where('cluster_report', 'is not', null)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        projectId: row.project_id,
        cost: parseJsonColumn<RunCost>(row.cost),
        cluster: parseJsonColumn<StoredClusterFacts>(row.cluster_config),
        profile: parseJsonColumn<RunProfile>(row.profile),
        clusterReport: parseJsonColumn<unknown>(row.cluster_report),
      }));
    },

    /**
     * Runs profiled before `model_profile` was stored, after the run `afterId`, in id order, with the
     * length of their profiles (what reading each would cost), not the profiles.
     */
    async withoutModelProfile(
      afterId: string | null,
      limit: number,
    ): Promise<Array<{ id: string; chars: number }>> {
      let query = db
        .selectFrom('runs')
        .select((eb) => ['id', eb.fn<number>('length', ['profile']).as('chars')])
        .where('profile', 'is not', null)
        .where('model_profile', 'is', null);
      if (afterId !== null) query = query.where('id', '>', afterId);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map((row) => ({ id: row.id, chars: Number(row.chars) }));
    },

    async profilesOf(runIds: readonly string[]): Promise<Array<{ id: string; profile: string | null }>> {
      if (runIds.length === 0) return [];
      return db.selectFrom('runs').select(['id', 'profile']).where('id', 'in', runIds).execute();
    },

    /** A profile's model view (and the profile cut to the caps, when given), unless one was written since. */
    async setModelProfile(
      runId: string,
      columns: { model_profile: string; profile?: string },
    ): Promise<void> {
      await db
        .updateTable('runs')
        .set(columns)
        .where('id', '=', runId)
        .where('model_profile', 'is', null)
        .execute();
    },

    async update(runId: string, changes: RunChanges, now = Date.now()): Promise<void> {
      await db
        .updateTable('runs')
        .set({ ...columnsOf(changes), updated_at: now })
        .where('id', '=', runId)
        .execute();
    },

    /** Which of `keys` some run still points to (the orphan sweep deletes the others). */
    async referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let start = 0; start < keys.length; start += 500) {
        const rows = await db
          .selectFrom('runs')
          .select('eventlog_blob_key')
          .where('eventlog_blob_key', 'in', keys.slice(start, start + 500))
          .execute();
        for (const row of rows) if (row.eventlog_blob_key) found.add(row.eventlog_blob_key);
      }
      return found;
    },

    /**
     * A pipeline step's result, written only while the run is still in the state the step started
     * from: an attempt that outlived its lease (another attempt moved the run on) changes nothing.
     * Returns whether the result was written.
     */
    async advance(
      runId: string,
      from: PipelineState,
      changes: RunChanges,
      now = Date.now(),
    ): Promise<boolean> {
      const result = await db
        .updateTable('runs')
        .set({ ...columnsOf(changes), updated_at: now })
        .where('id', '=', runId)
        .where('pipeline_state', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Costed runs of a project created since `since` (what learning counts). */
    async countCostedSince(projectId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('runs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('project_id', '=', projectId)
        .where('cost', 'is not', null)
        .where('created_at', '>=', since)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** Where an analyzed run sits in its project's history (what a window ends at), without its profile. */
    async analyzedMarker(runId: string): Promise<RunMarker | undefined> {
      const row = await db
        .selectFrom('runs')
        .select(['id', 'created_at'])
        .where('id', '=', runId)
        .where('model_profile', 'is not', null)
        .where('cost', 'is not', null)
        .executeTakeFirst();
      return row ? { id: row.id, createdAt: row.created_at } : undefined;
    },

    /**
     * What a recommendation learns from: a project's newest `limit` profiled and costed runs created since
     * `since`, up to and including the run `upTo` when given (a backlog's older run is judged on what came
     * before it), oldest first. Bounded whatever the project's history: the runs_project_created index
     * walks back from the newest run and stops after `limit` rows.
     */
    async analyzedWindow(
      projectId: string,
      window: { since: number; limit: number; upTo?: { id: string; createdAt: number } | undefined },
    ): Promise<AnalyzedRunRecord[]> {
      const { upTo } = window;
      let query = analyzedSince(projectId, window.since);
      if (upTo) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', upTo.createdAt),
            eb.and([eb('created_at', '=', upTo.createdAt), eb('id', '<=', upTo.id)]),
          ]),
        );
      }
      const newestFirst = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(window.limit)
        .execute();
      return newestFirst.reverse().map(analyzedRecordOf);
    },

    /**
     * A page of a project's profiled and costed runs created since `since`, after the run `after` (from the
     * first when null) and before the run `before`, oldest first: what folding into the learning summary
     * reads, `limit` runs at a time.
     */
    async analyzedBetween(
      projectId: string,
      range: {
        since: number;
        after: RunMarker | null;
        before: RunMarker;
        limit: number;
      },
    ): Promise<AnalyzedRunRecord[]> {
      const { after, before } = range;
      let query = analyzedSince(projectId, range.since).where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
          ]),
        );
      }
      const rows = await query.orderBy('created_at').orderBy('id').limit(range.limit).execute();
      return rows.map(analyzedRecordOf);
    },

    /** Per project: how many profiled and costed runs it has (what the fleet prior's refresh watches). */
    async analyzedCounts(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('runs')
        .select((eb) => ['project_id', eb.fn.countAll<number>().as('runs')])
        .where('model_profile', 'is not', null)
        .where('cost', 'is not', null)
        .groupBy('project_id')
        .execute();
      return new Map(rows.map((row) => [row.project_id, Number(row.runs)]));
    },

    /** The newest run whose processing reached modeling: what a recommendation is based on by default. */
    async latestProcessedId(projectId: string): Promise<string | undefined> {
      const latest = await db
        .selectFrom('runs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('pipeline_state', 'in', ['MODELING', 'DONE'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return latest?.id;
    },

    /** The newest run still on its way through ingest, parse or cost (not processed, not failed). */
    async latestPendingId(projectId: string): Promise<string | undefined> {
      const latest = await db
        .selectFrom('runs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('pipeline_state', 'in', ['INGESTING', 'PARSING', 'COSTING'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return latest?.id;
    },

    /** Runs in one of `states` untouched since `before`, up to `limit`. */
    async stalled(
      states: readonly PipelineState[],
      before: number,
      limit: number,
    ): Promise<Array<{ id: string; pipelineState: PipelineState }>> {
      const rows = await db
        .selectFrom('runs')
        .select(['id', 'pipeline_state'])
        .where('pipeline_state', 'in', states)
        .where('updated_at', '<', before)
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: row.id, pipelineState: row.pipeline_state as PipelineState }));
    },
  };
}

export type RunRepository = ReturnType<typeof createRunRepository>;
