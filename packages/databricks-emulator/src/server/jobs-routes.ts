import type { FastifyInstance } from 'fastify';
import { invalidParameter, resourceMissing } from './api-errors.js';
import { refuseInvalidClusters } from './cluster-validity.js';
import type { EmulatorContext } from './emulator-context.js';
import type { JobRecord, RunRecord } from './emulator-state.js';
import { mergeJobSettings, validateJobSettings, withReadDefaults } from './job-settings.js';
import { type ApiVersion, parseWith, queryBool, queryInt, type RouteKit, registerApi } from './route-kit.js';
import { decodePageToken, encodePageToken, isRunActive, runJson } from './run-views.js';
import {
  createJobBodySchema,
  type JobSettings,
  jobIdBodySchema,
  resetJobBodySchema,
  runIdBodySchema,
  runNowBodySchema,
  submitRunBodySchema,
  updateJobBodySchema,
} from './schema.js';
import { workspaceUser } from './workspace-user.js';

const jobsVersions: ApiVersion[] = ['2.0', '2.1', '2.2'];
const arrayCap = 100;

function requireJob(context: EmulatorContext, jobId: number | undefined): JobRecord {
  if (jobId === undefined) throw invalidParameter('Missing required field: job_id');
  const job = context.state.jobs.get(jobId);
  if (!job) throw resourceMissing(`Job ${jobId} does not exist.`);
  return job;
}

function requireRun(context: EmulatorContext, runId: number | undefined): RunRecord {
  if (runId === undefined) throw invalidParameter('Missing required field: run_id');
  const run = context.state.runs.get(runId) ?? context.state.taskRuns.get(runId)?.run;
  if (!run) throw resourceMissing(`Run ${runId} does not exist.`);
  return run;
}

function settingsView(settings: JobSettings, expand: boolean, page?: { offset: number }): JobSettings {
  const withDefaults = withReadDefaults(settings);
  if (!expand) {
    const { tasks: _tasks, job_clusters: _clusters, ...rest } = withDefaults;
    return rest as JobSettings;
  }
  if (!page) return withDefaults;
  const paged: JobSettings = { ...withDefaults };
  if (withDefaults.tasks) paged.tasks = withDefaults.tasks.slice(page.offset, page.offset + arrayCap);
  if (withDefaults.job_clusters) {
    // Later pages return the arrays already complete on the first page empty.
    paged.job_clusters = page.offset === 0 ? withDefaults.job_clusters.slice(0, arrayCap) : [];
  }
  return paged;
}

export function createJob(
  context: EmulatorContext,
  settings: JobSettings,
  endpoint = 'jobs/create',
): JobRecord {
  validateJobSettings(settings);
  refuseInvalidClusters(context, endpoint, settings);
  const { access_control_list: _acl, ...stored } = settings as JobSettings & {
    access_control_list?: unknown;
  };
  const job: JobRecord = {
    jobId: context.state.allocateJobId(),
    createdTimeMs: context.clock.now(),
    creatorUserName: workspaceUser.userName,
    settings: stored as JobSettings,
    runCount: 0,
  };
  context.state.jobs.set(job.jobId, job);
  return job;
}

export function registerJobsRoutes(app: FastifyInstance, kit: RouteKit, context: EmulatorContext): void {
  const { state, engine, clock } = context;

  registerApi(app, kit, 'POST', '/jobs/create', jobsVersions, ({ body, request }) => {
    const job = createJob(context, parseWith(createJobBodySchema, body), request.url);
    return { job_id: job.jobId };
  });

  registerApi(app, kit, 'GET', '/jobs/list', jobsVersions, ({ query, version }) => {
    const limit = queryInt(query, 'limit') ?? 20;
    if (limit < 1 || limit > 100)
      throw invalidParameter(`Invalid limit ${limit}: must be between 1 and 100.`);
    const offset = query.page_token ? decodePageToken(query.page_token) : (queryInt(query, 'offset') ?? 0);
    const name = query.name?.toLowerCase();
    const all = [...state.jobs.values()]
      .filter((job) => name === undefined || (job.settings.name ?? '').toLowerCase() === name)
      .sort((a, b) => a.jobId - b.jobId);
    const page = all.slice(offset, offset + limit);
    const expand = queryBool(query, 'expand_tasks');
    const hasMore = offset + limit < all.length;
    return {
      jobs: page.map((job) => ({
        job_id: job.jobId,
        creator_user_name: job.creatorUserName,
        created_time: job.createdTimeMs,
        settings: settingsView(job.settings, expand, version === '2.2' ? { offset: 0 } : undefined),
      })),
      has_more: hasMore,
      ...(hasMore ? { next_page_token: encodePageToken(offset + limit) } : {}),
      ...(offset > 0 ? { prev_page_token: encodePageToken(Math.max(0, offset - limit)) } : {}),
    };
  });

  registerApi(app, kit, 'GET', '/jobs/get', jobsVersions, ({ query, version }) => {
    const job = requireJob(context, queryInt(query, 'job_id'));
    const paged = version === '2.2';
    const offset = paged ? decodePageToken(query.page_token) : 0;
    const taskCount = job.settings.tasks?.length ?? 0;
    const more = paged && offset + arrayCap < taskCount;
    return {
      job_id: job.jobId,
      creator_user_name: job.creatorUserName,
      run_as_user_name: job.creatorUserName,
      created_time: job.createdTimeMs,
      settings: settingsView(job.settings, true, paged ? { offset } : undefined),
      ...(more ? { has_more: true, next_page_token: encodePageToken(offset + arrayCap) } : {}),
    };
  });

  registerApi(app, kit, 'POST', '/jobs/update', jobsVersions, ({ body, request: { url } }) => {
    const request = parseWith(updateJobBodySchema, body);
    const job = requireJob(context, request.job_id);
    const merged = mergeJobSettings(job.settings, request.new_settings, request.fields_to_remove);
    validateJobSettings(merged);
    refuseInvalidClusters(context, url, merged);
    job.settings = merged;
    return {};
  });

  registerApi(app, kit, 'POST', '/jobs/reset', jobsVersions, ({ body, request: { url } }) => {
    const request = parseWith(resetJobBodySchema, body);
    const job = requireJob(context, request.job_id);
    validateJobSettings(request.new_settings);
    refuseInvalidClusters(context, url, request.new_settings);
    const runAs = (job.settings as Record<string, unknown>).run_as;
    // Omitting run_as on reset does not clear it on the real service.
    job.settings =
      runAs !== undefined && (request.new_settings as Record<string, unknown>).run_as === undefined
        ? ({ ...request.new_settings, run_as: runAs } as JobSettings)
        : request.new_settings;
    return {};
  });

  registerApi(app, kit, 'POST', '/jobs/delete', jobsVersions, ({ body }) => {
    const job = requireJob(context, parseWith(jobIdBodySchema, body).job_id);
    state.jobs.delete(job.jobId);
    return {};
  });

  registerApi(app, kit, 'POST', '/jobs/run-now', jobsVersions, ({ body }) => {
    const request = parseWith(runNowBodySchema, body);
    const job = requireJob(context, request.job_id);
    const tokenKey = request.idempotency_token ? `job:${job.jobId}:${request.idempotency_token}` : undefined;
    const existing = tokenKey ? state.idempotency.get(tokenKey) : undefined;
    if (existing !== undefined) return { run_id: existing, number_in_job: existing };
    const run = engine.startRun({
      job,
      settings: job.settings,
      runName: job.settings.name ?? `Untitled job ${job.jobId}`,
      runType: 'JOB_RUN',
      ...(request.job_parameters ? { jobParameters: request.job_parameters } : {}),
      ...(request.performance_target ? { performanceTarget: request.performance_target } : {}),
      ...(request.only ? { only: request.only } : {}),
    });
    if (tokenKey) state.idempotency.set(tokenKey, run.runId);
    return { run_id: run.runId, number_in_job: run.numberInJob };
  });

  registerApi(app, kit, 'POST', '/jobs/runs/submit', jobsVersions, ({ body, request: { url } }) => {
    const request = parseWith(submitRunBodySchema, body);
    const tokenKey = request.idempotency_token ? `submit:${request.idempotency_token}` : undefined;
    const existing = tokenKey ? state.idempotency.get(tokenKey) : undefined;
    if (existing !== undefined) return { run_id: existing };
    const settings: JobSettings = {
      name: request.run_name ?? 'Untitled',
      tasks: request.tasks,
      ...(request.webhook_notifications ? { webhook_notifications: request.webhook_notifications } : {}),
    };
    validateJobSettings(settings);
    refuseInvalidClusters(context, url, settings);
    const run = engine.startRun({ settings, runName: request.run_name ?? 'Untitled', runType: 'SUBMIT_RUN' });
    if (tokenKey) state.idempotency.set(tokenKey, run.runId);
    return { run_id: run.runId };
  });

  registerApi(app, kit, 'GET', '/jobs/runs/get', jobsVersions, ({ query, version }) => {
    const run = requireRun(context, queryInt(query, 'run_id'));
    const paged = version === '2.2';
    return runJson(run, clock.now(), state, context.baseUrl.value, {
      includeTasks: true,
      ...(paged ? { taskPage: { offset: decodePageToken(query.page_token), size: arrayCap } } : {}),
    });
  });

  registerApi(app, kit, 'GET', '/jobs/runs/get-output', jobsVersions, ({ query }) => {
    const runId = queryInt(query, 'run_id');
    const taskRun = runId === undefined ? undefined : state.taskRuns.get(runId);
    if (!taskRun) {
      if (runId !== undefined && state.runs.has(runId)) {
        throw invalidParameter(
          `Retrieving the output of runs with multiple tasks is not supported. Please retrieve the output of each individual task run instead.`,
        );
      }
      throw resourceMissing(`Run ${runId} does not exist.`);
    }
    const now = clock.now();
    return {
      metadata: runJson(taskRun.run, now, state, context.baseUrl.value, { includeTasks: false }),
      ...(taskRun.task.outcome === 'FAILED' && now >= taskRun.task.endMs
        ? { error: taskRun.task.message }
        : {}),
    };
  });

  registerApi(app, kit, 'GET', '/jobs/runs/list', jobsVersions, ({ query, version }) => {
    let limit = queryInt(query, 'limit') ?? 20;
    if (limit === 0) limit = 25;
    if (limit < 0 || limit > 25)
      throw invalidParameter(`Invalid limit ${limit}: must be greater than 0 and at most 25.`);
    const offset = query.page_token ? decodePageToken(query.page_token) : (queryInt(query, 'offset') ?? 0);
    const jobId = queryInt(query, 'job_id');
    if (jobId !== undefined && !state.jobs.has(jobId)) throw resourceMissing(`Job ${jobId} does not exist.`);
    const activeOnly = queryBool(query, 'active_only');
    const completedOnly = queryBool(query, 'completed_only');
    if (activeOnly && completedOnly)
      throw invalidParameter('active_only and completed_only cannot both be true.');
    const from = queryInt(query, 'start_time_from');
    const to = queryInt(query, 'start_time_to');
    const now = clock.now();
    const runs = [...state.runs.values()]
      .filter((run) => jobId === undefined || run.jobId === jobId)
      .filter((run) => query.run_type === undefined || run.runType === query.run_type)
      .filter((run) => !activeOnly || isRunActive(run, now))
      .filter((run) => !completedOnly || !isRunActive(run, now))
      .filter((run) => (from === undefined || run.startMs >= from) && (to === undefined || run.startMs <= to))
      .sort((a, b) => b.startMs - a.startMs || b.runId - a.runId);
    const page = runs.slice(offset, offset + limit);
    const hasMore = offset + limit < runs.length;
    const expand = queryBool(query, 'expand_tasks');
    return {
      runs: page.map((run) =>
        runJson(run, now, state, context.baseUrl.value, {
          includeTasks: expand,
          ...(version === '2.2' ? { taskPage: { offset: 0, size: arrayCap } } : {}),
        }),
      ),
      has_more: hasMore,
      ...(hasMore ? { next_page_token: encodePageToken(offset + limit) } : {}),
      ...(offset > 0 ? { prev_page_token: encodePageToken(Math.max(0, offset - limit)) } : {}),
    };
  });

  registerApi(app, kit, 'POST', '/jobs/runs/cancel', jobsVersions, ({ body }) => {
    const run = requireRun(context, parseWith(runIdBodySchema, body).run_id);
    engine.cancelRun(run);
    return {};
  });

  registerApi(app, kit, 'POST', '/jobs/runs/cancel-all', jobsVersions, ({ body }) => {
    const jobId = parseWith(jobIdBodySchema, body).job_id;
    requireJob(context, jobId);
    const now = clock.now();
    for (const run of state.runs.values())
      if (run.jobId === jobId && isRunActive(run, now)) engine.cancelRun(run);
    return {};
  });
}
