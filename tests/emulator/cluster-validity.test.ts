import { describe, expect, it } from 'vitest';
import { freshEmulators, type TestEmulator } from './support.js';

const fresh = freshEmulators();

const cluster = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'm5d.xlarge',
  autoscale: { min_workers: 2, max_workers: 8 },
  aws_attributes: { availability: 'ON_DEMAND' },
};

const job = (newCluster: Record<string, unknown>, name = 'autoscaled') => ({
  name,
  tasks: [
    {
      task_key: 'main',
      spark_python_task: { python_file: 'dbfs:/jobbank/many-small-jobs.py' },
      new_cluster: newCluster,
    },
  ],
});

async function created(api: TestEmulator, newCluster: Record<string, unknown> = cluster): Promise<number> {
  const response = await api.call('POST', '/api/2.2/jobs/create', job(newCluster));
  expect(response.status).toBe(200);
  return response.json.job_id as number;
}

describe('the emulator refuses the clusters Databricks refuses', () => {
  it('answers an autoscale range with max_workers = min_workers with 400 INVALID_PARAMETER_VALUE and keeps the job', async () => {
    const api = await fresh();
    const jobId = await created(api);
    const flat = { ...cluster, autoscale: { min_workers: 1, max_workers: 1 } };
    const update = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      new_settings: job(flat),
    });
    expect(update.status).toBe(400);
    expect(update.json.error_code).toBe('INVALID_PARAMETER_VALUE');
    expect(update.json.message).toContain('max_workers (1) must be strictly greater than min_workers (1)');
    const stored = await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`);
    const tasks = (stored.json.settings as { tasks: Array<{ new_cluster: Record<string, unknown> }> }).tasks;
    expect(tasks[0]?.new_cluster.autoscale).toEqual({ min_workers: 2, max_workers: 8 });

    const reset = await api.call('POST', '/api/2.2/jobs/reset', { job_id: jobId, new_settings: job(flat) });
    expect(reset.status).toBe(400);
    const create = await api.call('POST', '/api/2.1/jobs/create', job(flat));
    expect(create.status).toBe(400);
    const submit = await api.call('POST', '/api/2.2/jobs/runs/submit', {
      run_name: 'one-off',
      tasks: job(flat).tasks,
    });
    expect(submit.status).toBe(400);

    const refusals = (await api.call('GET', '/emulator/admin/refusals')).json.refusals as Array<
      Record<string, unknown>
    >;
    expect(refusals.map((refusal) => refusal.rule)).toEqual([
      'autoscale-bounds',
      'autoscale-bounds',
      'autoscale-bounds',
      'autoscale-bounds',
    ]);
    expect(refusals[0]).toMatchObject({
      endpoint: '/api/2.2/jobs/update',
      field: 'tasks[0].new_cluster.autoscale.max_workers',
    });
  });

  it('accepts a valid autoscale range and records no refusal', async () => {
    const api = await fresh();
    const jobId = await created(api);
    const update = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      new_settings: job({ ...cluster, autoscale: { min_workers: 1, max_workers: 2 } }),
    });
    expect(update.status).toBe(200);
    expect((await api.call('GET', '/emulator/admin/refusals')).json.refusals).toEqual([]);
  });

  it('lists and accepts only the node types of its own cloud', async () => {
    const aws = await fresh({ cloud: 'aws' });
    const listed = (await aws.call('GET', '/api/2.1/clusters/list-node-types')).json.node_types as Array<{
      node_type_id: string;
    }>;
    expect(listed.some((type) => type.node_type_id === 'm5d.xlarge')).toBe(true);
    expect(listed.some((type) => type.node_type_id.startsWith('Standard_'))).toBe(false);
    const refused = await aws.call(
      'POST',
      '/api/2.2/jobs/create',
      job({ spark_version: '15.4.x-scala2.12', node_type_id: 'Standard_F8s_v2', num_workers: 2 }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('Node type "Standard_F8s_v2" is not supported in this workspace.');
    await aws.emulator.close();

    const azure = await fresh({ cloud: 'azure' });
    const azureTypes = (await azure.call('GET', '/api/2.1/clusters/list-node-types')).json
      .node_types as Array<{
      node_type_id: string;
    }>;
    expect(azureTypes.length).toBeGreaterThan(0);
    expect(azureTypes.every((type) => type.node_type_id.startsWith('Standard_'))).toBe(true);
  });

  it('refuses a node type named beside an instance pool, as Databricks does', async () => {
    const api = await fresh();
    const pool = await api.call('POST', '/api/2.0/instance-pools/create', {
      instance_pool_name: 'pool',
      node_type_id: 'r5d.xlarge',
    });
    const poolId = pool.json.instance_pool_id as string;
    const onPool = { spark_version: '15.4.x-scala2.12', instance_pool_id: poolId, num_workers: 2 };
    expect((await api.call('POST', '/api/2.2/jobs/create', job(onPool))).status).toBe(200);
    const named = await api.call(
      'POST',
      '/api/2.2/jobs/create',
      job({ ...onPool, node_type_id: 'r5d.xlarge' }),
    );
    expect(named.status).toBe(400);
    expect(named.json.message).toBe(
      "The field 'node_type_id' cannot be supplied when an instance pool ID is provided.",
    );
  });
});
