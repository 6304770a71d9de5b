import { describe, expect, it } from 'vitest';
import { scriptedFetch } from '../../../../../../tests/support/scripted-fetch.js';
import { DatabricksApiError } from './api-error.js';
import { createDatabricksClient } from './client.js';

function clientWith(answers: Parameters<typeof scriptedFetch>[0]) {
  const scripted = scriptedFetch(answers);
  const sleeps: number[] = [];
  const client = createDatabricksClient({
    host: 'dbc-1.cloud.databricks.com',
    token: 'dapi-secret',
    fetch: scripted.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  });
  return { client, calls: scripted.calls, sleeps };
}

describe('Databricks client transport', () => {
  it('sends the bearer token over https to the normalised host', async () => {
    const { client, calls } = clientWith([{ body: { node_types: [] } }]);

    await client.listNodeTypes();

    expect(calls[0]?.url.origin).toBe('https://dbc-1.cloud.databricks.com');
    expect(calls[0]?.headers.authorization).toBe('Bearer dapi-secret');
  });

  it('waits the Retry-After seconds on 429, then succeeds', async () => {
    const { client, sleeps } = clientWith([
      {
        status: 429,
        body: { error_code: 'REQUEST_LIMIT_EXCEEDED', message: 'slow down' },
        headers: { 'retry-after': '3' },
      },
      { body: { cluster_id: 'c-1', state: 'RUNNING' } },
    ]);

    const cluster = await client.getCluster('c-1');

    expect(cluster.state).toBe('RUNNING');
    expect(sleeps).toEqual([3000]);
  });

  it('backs off exponentially without Retry-After and gives up after the attempt budget', async () => {
    const scripted = scriptedFetch(Array.from({ length: 3 }, () => ({ status: 503, body: '' })));
    const sleeps: number[] = [];
    const client = createDatabricksClient({
      host: 'https://h',
      token: 't',
      fetch: scripted.fetch,
      retry: { maxAttempts: 3, baseDelayMs: 100 },
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 1,
    });

    const failure = client.getCluster('c-1');

    await expect(failure).rejects.toMatchObject({ errorCode: 'TEMPORARILY_UNAVAILABLE', httpStatus: 503 });
    expect(sleeps).toEqual([100, 200]);
    expect(scripted.calls).toHaveLength(3);
  });

  it('does not retry a 404 and surfaces Databricks error_code', async () => {
    const { client, calls } = clientWith([
      { status: 404, body: { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'Job 7 does not exist.' } },
    ]);

    const error = await client.getJob('7').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DatabricksApiError);
    expect((error as DatabricksApiError).errorCode).toBe('RESOURCE_DOES_NOT_EXIST');
    expect(calls).toHaveLength(1);
  });

  it('retries a connection failure', async () => {
    const { client } = clientWith([{ networkError: 'ECONNRESET' }, { body: { cluster_id: 'c-2' } }]);

    expect((await client.getCluster('c-2')).cluster_id).toBe('c-2');
  });

  it('rejects a response of the wrong shape with the field that is wrong', async () => {
    const { client } = clientWith([{ body: { cluster_id: 42 } }]);

    await expect(client.getCluster('c-1')).rejects.toThrow(
      /clusters\/get answered an unexpected shape at cluster_id/,
    );
  });
});

describe('Databricks client pagination', () => {
  it('follows jobs/list page tokens until none is returned', async () => {
    const { client, calls } = clientWith([
      { body: { jobs: [{ job_id: 1, settings: { name: 'a' } }], next_page_token: 'p2', has_more: true } },
      { body: { jobs: [{ job_id: 2, settings: { name: 'b' } }], has_more: false } },
    ]);

    const jobs = [];
    for await (const job of client.listJobs()) jobs.push(job);

    expect(jobs.map((job) => job.job_id)).toEqual(['1', '2']);
    expect(calls[1]?.url.searchParams.get('page_token')).toBe('p2');
  });

  it('merges jobs/get task pages into one job', async () => {
    const { client } = clientWith([
      {
        body: {
          job_id: 5,
          settings: { tasks: [{ task_key: 'a' }], job_clusters: [{ job_cluster_key: 'k' }] },
          next_page_token: 'x',
        },
      },
      { body: { job_id: 5, settings: { tasks: [{ task_key: 'b' }], job_clusters: [] } } },
    ]);

    const job = await client.getJob('5');

    expect(job.settings.tasks?.map((task) => task.task_key)).toEqual(['a', 'b']);
    expect(job.settings.job_clusters?.map((cluster) => cluster.job_cluster_key)).toEqual(['k']);
    expect(job).not.toHaveProperty('next_page_token');
  });

  it('pages cluster events through the legacy next_page body and returns them oldest first', async () => {
    const nextPage = { cluster_id: 'c-1', offset: 1, limit: 500 };
    const { client, calls } = clientWith([
      {
        body: {
          events: [{ cluster_id: 'c-1', timestamp: 20, type: 'RUNNING' }],
          next_page: nextPage,
          total_count: 2,
        },
      },
      { body: { events: [{ cluster_id: 'c-1', timestamp: 10, type: 'CREATING' }], total_count: 2 } },
    ]);

    const events = await client.listClusterEvents('c-1');

    expect(events.map((event) => event.type)).toEqual(['CREATING', 'RUNNING']);
    expect(calls[1]?.body).toEqual(nextPage);
  });

  it('reads DBFS files in windows of at most 1 MB until bytes_read is 0', async () => {
    const { client, calls } = clientWith([
      { body: { bytes_read: 3, data: Buffer.from('abc').toString('base64') } },
      { body: { bytes_read: 2, data: Buffer.from('de').toString('base64') } },
      { body: { bytes_read: 0, data: '' } },
    ]);

    const chunks: Buffer[] = [];
    for await (const chunk of client.dbfsRead('dbfs:/logs/eventlog')) chunks.push(chunk);

    expect(Buffer.concat(chunks).toString()).toBe('abcde');
    expect(calls.map((call) => call.url.searchParams.get('offset'))).toEqual(['0', '3', '5']);
    expect(calls[0]?.url.searchParams.get('length')).toBe(String(1024 * 1024));
  });

  it('keeps spark_context_id exact from clusters/get', async () => {
    const { client } = clientWith([{ body: '{"cluster_id":"c-1","spark_context_id":8880912756278443690}' }]);

    expect((await client.getCluster('c-1')).spark_context_id).toBe('8880912756278443690');
  });
});
