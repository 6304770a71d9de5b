import { parse } from '@cdktf/hcl2json';
import { describe, expect, it } from 'vitest';
import { terraformResourceName } from '../../../export/hcl-writer.js';
import { managedFieldPaths } from '../jobs/managed-fields.js';
import { exportTerraform, ignoreChangesPaths } from './terraform-export.js';

interface ParsedJob {
  resource: {
    databricks_job: Record<
      string,
      [
        {
          job_cluster?: [{ job_cluster_key: string; new_cluster: [Record<string, unknown>] }];
          task?: [{ task_key: string; new_cluster: [Record<string, unknown>] }];
          lifecycle: [{ ignore_changes: string[] }];
        },
      ]
    >;
  };
}

describe('exportTerraform', () => {
  it('writes HCL that parses, with the recommended values and the managed fields ignored', async () => {
    const hcl = exportTerraform({
      resourceName: 'orders_nightly',
      ref: { kind: 'job_cluster', jobClusterKey: 'etl' },
      position: 1,
      cluster: {
        node_type_id: 'r6i.xlarge',
        driver_node_type_id: 'm6i.large',
        autoscale: { min_workers: 2, max_workers: 7 },
        runtime_engine: 'PHOTON',
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1, ebs_volume_count: null },
      },
      header: ['Setpoint recommendation r-1 for project "orders etl"'],
    });

    const parsed = (await parse('main.tf', hcl)) as ParsedJob;
    const job = parsed.resource.databricks_job.orders_nightly?.[0];
    const jobCluster = job?.job_cluster?.[0];
    const newCluster = jobCluster?.new_cluster[0];

    expect(jobCluster?.job_cluster_key).toBe('etl');
    expect(newCluster).toMatchObject({
      node_type_id: 'r6i.xlarge',
      driver_node_type_id: 'm6i.large',
      runtime_engine: 'PHOTON',
      autoscale: [{ min_workers: 2, max_workers: 7 }],
      aws_attributes: [{ availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 }],
    });
    expect(newCluster).not.toHaveProperty('num_workers');
    expect(job?.lifecycle[0].ignore_changes).toEqual(
      ignoreChangesPaths({ kind: 'job_cluster', jobClusterKey: 'etl' }, 1).map((path) => `\${${path}}`),
    );
    expect(job?.lifecycle[0].ignore_changes).toHaveLength(managedFieldPaths.length);
    expect(hcl).toContain('# Setpoint recommendation r-1 for project "orders etl"');
  });

  it('targets a task cluster by its task position', async () => {
    const hcl = exportTerraform({
      resourceName: 'single',
      ref: { kind: 'task_cluster', taskKey: 'main' },
      position: 0,
      cluster: { node_type_id: 'c5.2xlarge', num_workers: 3 },
      header: [],
    });

    const parsed = (await parse('main.tf', hcl)) as ParsedJob;
    const job = parsed.resource.databricks_job.single?.[0];

    expect(job?.task?.[0]).toMatchObject({
      task_key: 'main',
      new_cluster: [{ node_type_id: 'c5.2xlarge', num_workers: 3 }],
    });
    expect(job?.lifecycle[0].ignore_changes[0]).toBe(`\${task[0].new_cluster[0].node_type_id}`);
  });

  it('escapes interpolation markers in strings', async () => {
    const hcl = exportTerraform({
      resourceName: 'x',
      ref: { kind: 'job_cluster', jobClusterKey: `k\${var.x}` },
      position: 0,
      cluster: { num_workers: 1 },
      header: [],
    });

    const parsed = (await parse('main.tf', hcl)) as ParsedJob;

    // hcl2json keeps literal template markers escaped, so an unescaped one would come back as `${`
    expect(hcl).toMatch(/job_cluster_key = "k\$\$\{var\.x\}"/);
    expect(parsed.resource.databricks_job.x?.[0].job_cluster?.[0].job_cluster_key).toBe(`k$\${var.x}`);
  });
});

describe('terraformResourceName', () => {
  it.each([
    ['Orders Nightly ETL', 'orders_nightly_etl'],
    ['42-daily', 'job_42-daily'],
    ['***', 'job_unnamed'],
  ])('%s → %s', (name, expected) => {
    expect(terraformResourceName(name)).toBe(expected);
  });
});
