import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type BundleEdit, CodeRefusal, type DesiredFields } from '../code-edit.js';
import { memoryCodeTree } from '../memory-code-tree.test-helpers.js';
import { editBundle } from './bundle-editor.js';

const root = `# Orders bundle
bundle:
  name: orders

include:
  - resources/*.yml

variables:
  orders_workers:
    description: workers of the nightly ETL
    default: 8

targets:
  dev:
    mode: development
    default: true
  prod:
    resources:
      jobs:
        orders_nightly:
          job_clusters:
            - job_cluster_key: etl
              new_cluster:
                node_type_id: i3.2xlarge # prod is bigger
`;

const resource = `resources:
  jobs:
    orders_nightly:
      name: "[\${bundle.target}] Orders nightly"
      job_clusters:
        - job_cluster_key: etl
          new_cluster:
            spark_version: 15.4.x-scala2.12
            node_type_id: i3.xlarge   # sized in 2023
            num_workers: \${var.orders_workers}
            aws_attributes:
              availability: SPOT_WITH_FALLBACK
              zone_id: "us-west-2a"
      tasks:
        - task_key: main
          job_cluster_key: etl
          spark_python_task:
            python_file: ../src/orders.py
`;

const files = { 'databricks.yml': root, 'resources/orders.yml': resource };

function edit(fields: DesiredFields, name = '[prod] Orders nightly'): BundleEdit {
  return {
    format: 'bundle',
    job: { name },
    path: [{ field: 'job_clusters', where: { job_cluster_key: 'etl' } }, { field: 'new_cluster' }],
    fields,
  };
}

describe('editBundle', () => {
  it("writes each field where the deployed target takes it from: the target's override, the variable, the base", async () => {
    const recommendation = edit({
      node_type_id: 'r5d.xlarge',
      driver_node_type_id: 'm5.large',
      num_workers: 5,
      runtime_engine: 'PHOTON',
      aws_attributes: { block: { availability: 'ON_DEMAND', first_on_demand: 1, ebs_volume_count: null } },
    });
    const outcome = await editBundle(
      memoryCodeTree(files),
      { path: 'resources/orders.yml', target: 'prod' },
      recommendation,
    );

    expect(Object.fromEntries(outcome.changes.map((change) => [change.path, change.after]))).toEqual({
      'databricks.yml': root
        .replace('default: 8', 'default: 5')
        .replace('node_type_id: i3.2xlarge # prod', 'node_type_id: r5d.xlarge # prod'),
      'resources/orders.yml': resource.replace(
        '              availability: SPOT_WITH_FALLBACK\n              zone_id: "us-west-2a"\n',
        '              availability: ON_DEMAND\n              zone_id: "us-west-2a"\n              first_on_demand: 1\n            driver_node_type_id: m5.large\n            runtime_engine: PHOTON\n',
      ),
    });
    expect(outcome.notes).toEqual([
      `resources.jobs.orders_nightly.num_workers: \${var.orders_workers} in variables.orders_workers.default (databricks.yml), 8 → 5`,
    ]);
    const again = await editBundle(
      memoryCodeTree(Object.fromEntries(outcome.changes.map((change) => [change.path, change.after]))),
      { path: 'resources/orders.yml', target: 'prod' },
      recommendation,
    );
    expect(again.changes).toEqual([]);
  });

  it('turns a fixed cluster autoscaling: the worker count goes with its line, the range is added', async () => {
    const outcome = await editBundle(
      memoryCodeTree({
        'databricks.yml': root,
        'resources/orders.yml': resource.replace(`\${var.orders_workers}`, '8'),
      }),
      { path: 'databricks.yml' },
      edit(
        { num_workers: null, autoscale: { block: { min_workers: 2, max_workers: 8 } } },
        '[dev alice] Orders nightly',
      ),
    );
    const after = outcome.changes[0]?.after ?? '';
    expect(after).toContain(
      '            node_type_id: i3.xlarge   # sized in 2023\n            aws_attributes:\n              availability: SPOT_WITH_FALLBACK\n              zone_id: "us-west-2a"\n            autoscale:\n              min_workers: 2\n              max_workers: 8\n      tasks:',
    );
    const job = parse(after).resources.jobs.orders_nightly;
    expect(job.job_clusters[0].new_cluster.autoscale).toEqual({ min_workers: 2, max_workers: 8 });
    expect(job.job_clusters[0].new_cluster.num_workers).toBeUndefined();
  });

  it('refuses what it cannot rewrite, naming it', async () => {
    const refusal = async (changed: Record<string, string>, fields: DesiredFields = { num_workers: 5 }) => {
      const error = await editBundle(
        memoryCodeTree({ ...files, ...changed }),
        { path: 'resources/orders.yml', target: 'prod' },
        edit(fields),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CodeRefusal);
      return (error as Error).message;
    };
    expect(
      await refusal({
        'resources/orders.yml': resource.replace(`\${var.orders_workers}`, `"\${var.base}0"`),
      }),
    ).toContain(`num_workers is "\${var.base}0" (resources/orders.yml:10); Setpoint rewrites literals`);
    expect(
      await refusal({
        'resources/orders.yml': `${resource}    reports:\n      name: Reports\n      max_concurrent_runs: \${var.orders_workers}\n`,
      }),
    ).toContain(`\${var.orders_workers}, which the bundle uses 2 times`);
    expect(await refusal({ 'databricks.yml': root.replace('    default: 8\n', '') })).toContain(
      'has no default in the bundle: it is given at deploy time (--var or BUNDLE_VAR_orders_workers)',
    );
    const anchored = `x-cluster: &cluster\n  node_type_id: i3.xlarge\n${resource.replace(/new_cluster:\n(( {12}.*\n)+)/, 'new_cluster: *cluster\n')}`;
    expect(await refusal({ 'resources/orders.yml': anchored })).toContain(
      'new_cluster is the alias *cluster (resources/orders.yml:9); changing the anchor would change every use',
    );
    expect(
      await refusal({ 'resources/orders.yml': resource.replace('Orders nightly', 'Reports') }),
    ).toContain('the bundle has no job named');
  });
});
