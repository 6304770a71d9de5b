import type { z } from 'zod';
import { parseResponse } from './parse-response.js';
import {
  type Cluster,
  type ClusterEvent,
  type ClusterPolicy,
  type CurrentUser,
  clusterEventsResponseSchema,
  clusterPolicySchema,
  clusterSchema,
  currentUserSchema,
  type DbfsFileInfo,
  type DirectoryEntry,
  dbfsFileInfoSchema,
  dbfsListResponseSchema,
  dbfsReadResponseSchema,
  directoryListResponseSchema,
  type InstancePool,
  instancePoolSchema,
  type Job,
  type JobSettings,
  jobSchema,
  listJobsResponseSchema,
  listNodeTypesResponseSchema,
  listNotificationDestinationsResponseSchema,
  listRunsResponseSchema,
  type NodeType,
  type NotificationDestination,
  notificationDestinationSchema,
  type Run,
  runNowResponseSchema,
  runSchema,
} from './schema.js';
import { createTransport, type DatabricksTransport, type TransportOptions } from './transport.js';

type Query = Record<string, string | number | boolean | undefined>;
type ClusterEventsPage = z.output<typeof clusterEventsResponseSchema>;

/** The largest window dbfs/read serves. */
export const dbfsMaxReadBytes = 1024 * 1024;

export interface ListRunsFilter {
  jobId?: string;
  startTimeFrom?: number;
  completedOnly?: boolean;
}

export interface ClusterEventsFilter {
  startTime?: number;
  endTime?: number;
  eventTypes?: string[];
}

/** One Files API download's limit (connect to last byte). */
export const downloadTimeoutMs = 600_000;

/** A probe that must answer quickly: one attempt, this long at most. */
export interface ProbeOptions {
  timeoutMs: number;
}

/** Int64 ids go back on the wire as numbers when they are exactly representable. */
function wireId(id: string): number | string {
  const asNumber = Number(id);
  return Number.isSafeInteger(asNumber) ? asNumber : id;
}

export function createDatabricksClient(options: TransportOptions | { transport: DatabricksTransport }) {
  const transport = 'transport' in options ? options.transport : createTransport(options);

  async function get<Schema extends z.ZodType>(
    path: string,
    schema: Schema,
    query?: Query,
  ): Promise<z.output<Schema>> {
    return parseResponse(schema, await transport.json({ method: 'GET', path, query }), path);
  }

  /** SCIM `Me`: who the credential signs in as (any valid token may read its own user). */
  async function currentUser(probe?: ProbeOptions): Promise<CurrentUser> {
    const path = '/api/2.0/preview/scim/v2/Me';
    const answer = await transport.json({
      method: 'GET',
      path,
      ...(probe && { timeoutMs: probe.timeoutMs, maxAttempts: 1 }),
    });
    return parseResponse(currentUserSchema, answer, path);
  }

  async function* listJobs(pageSize = 100): AsyncGenerator<Job> {
    let pageToken: string | undefined;
    do {
      const page = await get('/api/2.2/jobs/list', listJobsResponseSchema, {
        limit: pageSize,
        expand_tasks: true,
        page_token: pageToken,
      });
      yield* page.jobs;
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
  }

  /** jobs/get caps tasks and job_clusters at 100 per page; the pages are merged into one Job. */
  async function getJob(jobId: string): Promise<Job> {
    let job: Job | undefined;
    let pageToken: string | undefined;
    do {
      const page = await get('/api/2.2/jobs/get', jobSchema, { job_id: jobId, page_token: pageToken });
      if (!job) job = page;
      else {
        job.settings.tasks = [...(job.settings.tasks ?? []), ...(page.settings.tasks ?? [])];
        job.settings.job_clusters = [
          ...(job.settings.job_clusters ?? []),
          ...(page.settings.job_clusters ?? []),
        ];
      }
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
    if (job) {
      delete job.next_page_token;
      delete job.has_more;
    }
    return job as Job;
  }

  async function updateJob(
    jobId: string,
    newSettings: JobSettings,
    fieldsToRemove: string[] = [],
  ): Promise<void> {
    const body: Record<string, unknown> = { job_id: wireId(jobId), new_settings: newSettings };
    if (fieldsToRemove.length) body.fields_to_remove = fieldsToRemove;
    await transport.json({ method: 'POST', path: '/api/2.2/jobs/update', body });
  }

  async function resetJob(jobId: string, newSettings: JobSettings): Promise<void> {
    await transport.json({
      method: 'POST',
      path: '/api/2.2/jobs/reset',
      body: { job_id: wireId(jobId), new_settings: newSettings },
    });
  }

  async function runNow(jobId: string, idempotencyToken?: string): Promise<string> {
    const path = '/api/2.2/jobs/run-now';
    const body: Record<string, unknown> = { job_id: wireId(jobId) };
    if (idempotencyToken) body.idempotency_token = idempotencyToken;
    return parseResponse(runNowResponseSchema, await transport.json({ method: 'POST', path, body }), path)
      .run_id;
  }

  /** runs/get pages its task list; the pages are merged into one Run. */
  async function getRun(runId: string): Promise<Run> {
    let run: Run | undefined;
    let pageToken: string | undefined;
    do {
      const page = await get('/api/2.2/jobs/runs/get', runSchema, { run_id: runId, page_token: pageToken });
      if (!run) run = page;
      else {
        run.tasks = [...(run.tasks ?? []), ...(page.tasks ?? [])];
        run.job_clusters = [...(run.job_clusters ?? []), ...(page.job_clusters ?? [])];
      }
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
    return run as Run;
  }

  async function* listRuns(filter: ListRunsFilter = {}): AsyncGenerator<Run> {
    let pageToken: string | undefined;
    do {
      const page = await get('/api/2.2/jobs/runs/list', listRunsResponseSchema, {
        job_id: filter.jobId,
        start_time_from: filter.startTimeFrom,
        completed_only: filter.completedOnly,
        expand_tasks: true,
        limit: 24,
        page_token: pageToken,
      });
      yield* page.runs;
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
  }

  async function getCluster(clusterId: string): Promise<Cluster> {
    return get('/api/2.1/clusters/get', clusterSchema, { cluster_id: clusterId });
  }

  /**
   * All events of a cluster, oldest first. Follows `next_page_token` where the service sends it and
   * the legacy `next_page` request body otherwise.
   */
  async function listClusterEvents(
    clusterId: string,
    filter: ClusterEventsFilter = {},
  ): Promise<ClusterEvent[]> {
    const path = '/api/2.1/clusters/events';
    const events: ClusterEvent[] = [];
    let body: Record<string, unknown> | undefined = {
      cluster_id: clusterId,
      order: 'ASC',
      limit: 500,
      ...(filter.startTime !== undefined ? { start_time: filter.startTime } : {}),
      ...(filter.endTime !== undefined ? { end_time: filter.endTime } : {}),
      ...(filter.eventTypes ? { event_types: filter.eventTypes } : {}),
    };
    while (body) {
      const page: ClusterEventsPage = parseResponse(
        clusterEventsResponseSchema,
        await transport.json({ method: 'POST', path, body }),
        path,
      );
      events.push(...page.events);
      if (page.next_page_token) body = { ...body, page_token: page.next_page_token };
      else if (page.next_page && page.events.length > 0) body = page.next_page;
      else body = undefined;
    }
    return events.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** A compute policy with its rules (`policies/clusters/get`). */
  async function getClusterPolicy(policyId: string): Promise<ClusterPolicy> {
    return get('/api/2.0/policies/clusters/get', clusterPolicySchema, { policy_id: policyId });
  }

  /** An instance pool, for the node type of the clusters drawn from it (`instance-pools/get`). */
  async function getInstancePool(instancePoolId: string): Promise<InstancePool> {
    return get('/api/2.0/instance-pools/get', instancePoolSchema, { instance_pool_id: instancePoolId });
  }

  async function listNodeTypes(): Promise<NodeType[]> {
    return (await get('/api/2.1/clusters/list-node-types', listNodeTypesResponseSchema)).node_types;
  }

  async function dbfsList(path: string): Promise<DbfsFileInfo[]> {
    return (await get('/api/2.0/dbfs/list', dbfsListResponseSchema, { path })).files;
  }

  async function dbfsGetStatus(path: string): Promise<DbfsFileInfo> {
    return get('/api/2.0/dbfs/get-status', dbfsFileInfoSchema, { path });
  }

  /** Streams a DBFS file in windows of at most 1 MB, so a large log never sits in memory whole. */
  async function* dbfsRead(path: string, fromOffset = 0): AsyncGenerator<Buffer> {
    let offset = fromOffset;
    for (;;) {
      const chunk = await get('/api/2.0/dbfs/read', dbfsReadResponseSchema, {
        path,
        offset,
        length: dbfsMaxReadBytes,
      });
      if (chunk.bytes_read === 0) return;
      yield Buffer.from(chunk.data, 'base64');
      offset += chunk.bytes_read;
    }
  }

  async function* listDirectory(path: string): AsyncGenerator<DirectoryEntry> {
    let pageToken: string | undefined;
    do {
      const apiPath = `/api/2.0/fs/directories${encodeFilesPath(path)}`;
      const page = await get(apiPath, directoryListResponseSchema, {
        page_size: 1000,
        page_token: pageToken,
      });
      yield* page.contents;
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
  }

  async function downloadFile(path: string): Promise<Buffer> {
    const response = await transport.raw({
      method: 'GET',
      path: `/api/2.0/fs/files${encodeFilesPath(path)}`,
      // a rolled event-log file can be hundreds of MB: the whole body, not one answer, has this long
      timeoutMs: downloadTimeoutMs,
    });
    return Buffer.from(response.body);
  }

  async function createWebhookDestination(params: {
    displayName: string;
    url: string;
    username: string;
    password: string;
  }): Promise<NotificationDestination> {
    const path = '/api/2.0/notification-destinations';
    const body = {
      display_name: params.displayName,
      config: { generic_webhook: { url: params.url, username: params.username, password: params.password } },
    };
    return parseResponse(
      notificationDestinationSchema,
      await transport.json({ method: 'POST', path, body }),
      path,
    );
  }

  async function* listNotificationDestinations(): AsyncGenerator<NotificationDestination> {
    let pageToken: string | undefined;
    do {
      const page = await get(
        '/api/2.0/notification-destinations',
        listNotificationDestinationsResponseSchema,
        {
          page_size: 100,
          page_token: pageToken,
        },
      );
      yield* page.results;
      pageToken = page.next_page_token || undefined;
    } while (pageToken);
  }

  return {
    host: transport.host,
    currentUser,
    listJobs,
    getJob,
    updateJob,
    resetJob,
    runNow,
    getRun,
    listRuns,
    getCluster,
    getClusterPolicy,
    getInstancePool,
    listClusterEvents,
    listNodeTypes,
    dbfsList,
    dbfsGetStatus,
    dbfsRead,
    listDirectory,
    downloadFile,
    createWebhookDestination,
    listNotificationDestinations,
  };
}

export type DatabricksClient = ReturnType<typeof createDatabricksClient>;

function encodeFilesPath(path: string): string {
  const absolute = path.startsWith('/') ? path : `/${path}`;
  return absolute.split('/').map(encodeURIComponent).join('/');
}
