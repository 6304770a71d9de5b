import { simulateRun } from '@setpoint/databricks-emulator/physics/simulate-run';
import { findShippedWorkload } from '@setpoint/databricks-emulator/workloads/shipped-workloads';
import { runCli } from '../support/run-cli.js';

/** A bearer-authenticated client of a running `setpoint serve`, for seeding data through the API. */
export interface SeedClient {
  token: string;
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export async function connectSeedClient(baseUrl: string, dataDir: string): Promise<SeedClient> {
  const created = await runCli([
    'keys',
    'create',
    '--name',
    'dashboard-tests',
    '--data-dir',
    dataDir,
    '--json',
  ]);
  if (created.code !== 0) throw new Error(`setpoint keys create failed: ${created.stderr}`);
  const key = JSON.parse(created.stdout) as { id: string; secret: string };
  const exchanged = await fetch(`${baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key_id: key.id, api_key_secret: key.secret }),
  });
  if (!exchanged.ok) throw new Error(`token exchange failed: ${exchanged.status} ${await exchanged.text()}`);
  const { access_token: token } = (await exchanged.json()) as { access_token: string };
  return {
    token,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const isForm = body instanceof FormData;
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined || isForm ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

export interface SeededProject {
  id: string;
  name: string;
}

/** Projects with only a name and settings: what the projects list shows before any run. */
export async function seedProjects(
  client: SeedClient,
  names: string[],
  settings: (index: number) => Record<string, unknown> = () => ({}),
  concurrency = 8,
): Promise<SeededProject[]> {
  const out: SeededProject[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const index = next;
      next += 1;
      const project = await client.request<{ id: string; name: string }>('POST', '/api/v1/projects', {
        name: names[index],
        job_id: String(1000 + index),
        settings: settings(index),
      });
      out[index] = { id: project.id, name: project.name };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/**
 * Workers per run: the job definition changes once by hand (run 20) and once to Setpoint's smaller
 * cluster (run 40), so the timeline has two configuration changes.
 */
export const workersForRun = (index: number) => (index < 20 ? 8 : index < 40 ? 6 : 4);

/**
 * Uploads `count` simulated daily runs of a shipped emulator workload, each with the event log the
 * emulator's physics writes and a cluster report naming the cluster it ran on.
 */
export async function seedRuns(
  client: SeedClient,
  projectId: string,
  runs: { from: number; to: number; of: number; recommendationId?: string },
): Promise<void> {
  const workload = findShippedWorkload('daily-aggregation');
  if (!workload) throw new Error('the emulator ships no daily-aggregation workload');
  const count = runs.of;
  for (let index = runs.from; index < runs.to; index += 1) {
    const cluster = {
      spark_version: '15.4.x-scala2.12',
      node_type_id: 'm5.xlarge',
      driver_node_type_id: 'm5.xlarge',
      num_workers: workersForRun(index),
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
      // How a run started from a Setpoint recommendation names it (the job carries the tag).
      ...(runs.recommendationId
        ? { custom_tags: { 'setpoint:recommendation-id': runs.recommendationId } }
        : {}),
    };
    // Daily runs ending yesterday, so the project is active today.
    const startTimeMs = Math.floor(Date.now() / 86_400_000 - count + index) * 86_400_000 + 2 * 3_600_000;
    const run = simulateRun(workload, cluster, 7, index, { startTimeMs });
    const form = new FormData();
    form.set('external_run_id', `run-${index}`);
    form.set('status', run.outcome);
    form.set(
      'cluster_report',
      JSON.stringify({ plan_type: 'Premium', compute_type: 'Jobs Compute', cluster }),
    );
    form.set('eventlog', new Blob([`${run.eventLogLines.join('\n')}\n`]), 'eventlog');
    await client.request('POST', `/api/v1/projects/${projectId}/runs`, form);
  }
}

/** Requests a recommendation from the latest run and waits until it has succeeded. */
export async function seedRecommendation(
  client: SeedClient,
  projectId: string,
  timeoutMs = 60_000,
): Promise<string> {
  const { id } = await client.request<{ id: string }>(
    'POST',
    `/api/v1/projects/${projectId}/recommendations`,
    {},
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rec = await client.request<{ state: string; error: string | null }>(
      'GET',
      `/api/v1/projects/${projectId}/recommendations/${id}`,
    );
    if (rec.state === 'SUCCESS') return id;
    if (rec.state === 'FAILURE') throw new Error(`recommendation failed: ${rec.error}`);
    if (Date.now() > deadline) throw new Error(`recommendation still ${rec.state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Waits until the pipeline has finished (or failed) every run of the project. */
export async function waitForPipeline(
  client: SeedClient,
  projectId: string,
  expected: number,
  timeoutMs = 180_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.request<{
      items: Array<{ pipeline_state: string; error: string | null }>;
      total: number;
    }>('GET', `/api/v1/projects/${projectId}/runs?limit=500`);
    const settled = page.items.filter(
      (run) => run.pipeline_state === 'DONE' || run.pipeline_state === 'FAILED',
    );
    // A run is DONE once it has asked for its recommendation; the recommendation is fitted after
    // that, so "settled" also means no recommendation is still queued.
    const pending =
      page.total === expected && settled.length === expected
        ? (
            await client.request<{ total: number }>(
              'GET',
              `/api/v1/projects/${projectId}/recommendations?state=PENDING&limit=1`,
            )
          ).total
        : undefined;
    if (pending === 0) return page.items;
    if (Date.now() > deadline) {
      throw new Error(
        `pipeline settled ${settled.length} of ${expected} runs` +
          (pending ? ` with ${pending} recommendations still queued` : '') +
          ` within ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
