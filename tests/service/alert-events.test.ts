import { createServer, type Server } from 'node:http';
import { createRepositories } from 'setpoint/service/repositories';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

interface Hook {
  event: string;
  project_id: string | null;
  title: string;
  detail: Record<string, unknown>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps every payload. */
async function startReceiver(): Promise<{ server: Server; url: string; hooks: Hook[] }> {
  const hooks: Hook[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      hooks.push(JSON.parse(body) as Hook);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    hooks,
  };
}

/** The events that come from the pipeline's own records: a phase change and jobs parked after their attempts. */
describe('alerts on learning finished, collection parked and apply failed', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await createHarness({ config: { outboundAllowList: '127.0.0.1' } });
  });
  afterAll(async () => {
    receiver?.server.close();
    await h?.close();
  });

  it('sends each once to the rules that cover its project, and nothing for other jobs or phase changes', async () => {
    const project = async (name: string) =>
      (await h.request('POST', '/api/v1/projects', { name })).json().id as string;
    const orders = await project('orders');
    const other = await project('other');
    const destination = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'webhook',
        name: 'on-call',
        url: `${receiver.url}/hook`,
        signing_secret: 'whsec-0123456789abcdef',
      })
    ).json().id as string;
    for (const rule of [
      { event: 'learning_finished' },
      { event: 'collection_parked' },
      // scoped to another project: the failed apply of `orders` is not its business
      { event: 'apply_failed', project_id: other },
      { event: 'apply_failed', project_id: orders },
    ]) {
      const created = await h.request('POST', '/api/v1/alerts/rules', {
        ...rule,
        destination_id: destination,
      });
      expect(created.status, created.body).toBe(201);
    }

    const repositories = createRepositories(h.services.store.db);
    const phase = (from: string, to: string) =>
      repositories.audit.record({
        entity: 'project',
        entityId: orders,
        action: 'phase',
        actor: 'pipeline',
        detail: { from, to, reason: 'recommendation rec-1' },
      });
    await phase('LEARNING', 'OPTIMIZING');
    await phase('OPTIMIZING', 'MONITORING');
    const now = Date.now();
    const park = (kind: string, error: string) =>
      repositories.parkedJobs.insert({
        queue: 'setpoint',
        job_id: `job-${kind}`,
        kind,
        payload: JSON.stringify({ workspaceId: 'ws-1', runId: 'run-1', projectId: orders }),
        error,
        attempts: 5,
        created_at: now,
      });
    await park('databricks.collect', 'the event log was not found at dbfs:/logs/run-1');
    await park('databricks.apply', 'the job is owned by another user');
    await park('recommendation.compute', 'the model could not be fitted');

    expect(await h.services.alerts.evaluate()).toBe(3);
    expect(await h.services.alerts.evaluate()).toBe(0);

    const byEvent = Object.fromEntries(receiver.hooks.map((hook) => [hook.event, hook]));
    expect(receiver.hooks).toHaveLength(3);
    expect(byEvent.learning_finished).toMatchObject({
      project_id: orders,
      title: 'orders: learning finished; Setpoint now optimizes this job',
      detail: { from: 'LEARNING', to: 'OPTIMIZING' },
    });
    expect(byEvent.collection_parked).toMatchObject({
      project_id: orders,
      title: 'Collecting a run failed after 5 attempts: the event log was not found at dbfs:/logs/run-1',
      detail: { job_kind: 'databricks.collect', attempts: 5 },
    });
    expect(byEvent.apply_failed).toMatchObject({
      project_id: orders,
      title: 'Applying a configuration failed after 5 attempts: the job is owned by another user',
      detail: { job_kind: 'databricks.apply' },
    });
    const listed = (await h.request('GET', '/api/v1/notifications')).json().items;
    expect(
      listed.map((item: { event: string; status: string }) => `${item.event} ${item.status}`).sort(),
    ).toEqual(['apply_failed SENT', 'collection_parked SENT', 'learning_finished SENT']);
  });
});
