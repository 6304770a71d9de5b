import { parse } from '@cdktf/hcl2json';
import { describe, expect, it } from 'vitest';
import { CodeRefusal, type DesiredFields, type TerraformEdit } from '../code-edit.js';
import { memoryCodeTree } from '../memory-code-tree.test-helpers.js';
import { editTerraform } from './terraform-editor.js';

const jobFile = `# The orders pipeline, sized by hand in 2023.
resource "databricks_job" "orders" {
  name = "Orders nightly"

  job_cluster {
    job_cluster_key = "etl"

    new_cluster {
      spark_version = "15.4.x-scala2.12" # LTS
      node_type_id  = "i3.xlarge"
      num_workers   = 8
      spark_conf = {
        "spark.sql.shuffle.partitions" = "400"
      }

      aws_attributes {
        availability = "SPOT_WITH_FALLBACK"
        zone_id      = "us-west-2a"
      }
    }
  }

  task {
    task_key        = "main"
    job_cluster_key = "etl"
  }
}

resource "databricks_job" "other" {
  name = "Other job"
}
`;

function jobEdit(fields: DesiredFields, name = 'Orders nightly'): TerraformEdit {
  return {
    format: 'terraform',
    resources: [
      {
        type: 'databricks_job',
        match: { attribute: 'name', equals: name },
        path: [{ field: 'job_cluster', where: { job_cluster_key: 'etl' } }, { field: 'new_cluster' }],
        fields,
      },
    ],
  };
}

const managedKeys = ['node_type_id', 'driver_node_type_id', 'num_workers', 'autoscale', 'runtime_engine'];

/** The parsed job (by @cdktf/hcl2json) without the managed attributes: what must not change. */
async function unmanagedPart(text: string) {
  const parsed = (await parse('main.tf', text)) as {
    resource: {
      databricks_job: Record<string, { job_cluster?: { new_cluster: Record<string, unknown>[] }[] }[]>;
    };
  };
  for (const job of Object.values(parsed.resource.databricks_job)) {
    for (const cluster of job[0]?.job_cluster?.flatMap((entry) => entry.new_cluster) ?? []) {
      for (const key of managedKeys) delete cluster[key];
      const aws = (cluster.aws_attributes as Record<string, unknown>[] | undefined)?.[0];
      for (const key of ['availability', 'first_on_demand', 'ebs_volume_count']) delete aws?.[key];
    }
  }
  return parsed;
}

describe('editTerraform', () => {
  it('changes exactly the managed attributes in place and keeps every other byte', async () => {
    const tree = memoryCodeTree({ 'infra/jobs.tf': jobFile });
    const edit = jobEdit({
      node_type_id: 'r5d.xlarge',
      driver_node_type_id: 'm5.large',
      num_workers: null,
      autoscale: { block: { min_workers: 2, max_workers: 6 } },
      runtime_engine: 'PHOTON',
      aws_attributes: { block: { availability: 'ON_DEMAND', first_on_demand: 1, ebs_volume_count: null } },
    });

    const outcome = await editTerraform(tree, { path: 'infra/jobs.tf' }, edit);

    expect(outcome.changes.map((change) => change.path)).toEqual(['infra/jobs.tf']);
    const after = outcome.changes[0]?.after ?? '';
    expect(after).toBe(`# The orders pipeline, sized by hand in 2023.
resource "databricks_job" "orders" {
  name = "Orders nightly"

  job_cluster {
    job_cluster_key = "etl"

    new_cluster {
      spark_version = "15.4.x-scala2.12" # LTS
      node_type_id  = "r5d.xlarge"
      spark_conf = {
        "spark.sql.shuffle.partitions" = "400"
      }

      driver_node_type_id = "m5.large"
      runtime_engine      = "PHOTON"

      aws_attributes {
        availability = "ON_DEMAND"
        zone_id      = "us-west-2a"

        first_on_demand = 1
      }

      autoscale {
        min_workers = 2
        max_workers = 6
      }
    }
  }

  task {
    task_key        = "main"
    job_cluster_key = "etl"
  }
}

resource "databricks_job" "other" {
  name = "Other job"
}
`);
    // read back by a parser Setpoint did not write: the values landed, nothing else moved
    const parsed = (await parse('main.tf', after)) as {
      resource: {
        databricks_job: { orders: { job_cluster: { new_cluster: Record<string, unknown>[] }[] }[] };
      };
    };
    expect(parsed.resource.databricks_job.orders[0]?.job_cluster[0]?.new_cluster[0]).toMatchObject({
      node_type_id: 'r5d.xlarge',
      driver_node_type_id: 'm5.large',
      runtime_engine: 'PHOTON',
      autoscale: [{ min_workers: 2, max_workers: 6 }],
      aws_attributes: [{ availability: 'ON_DEMAND', first_on_demand: 1, zone_id: 'us-west-2a' }],
    });
    expect(await unmanagedPart(after)).toEqual(await unmanagedPart(jobFile));
    // the file now says what the recommendation says: a second pass changes nothing
    const again = await editTerraform(
      memoryCodeTree({ 'infra/jobs.tf': after }),
      { path: 'infra/jobs.tf' },
      edit,
    );
    expect(again.changes).toEqual([]);
  });

  it("changes a variable's default, or the .tfvars entry that wins, when the attribute names it", async () => {
    const files = {
      'infra/jobs.tf': jobFile.replace('num_workers   = 8', 'num_workers   = var.orders_workers'),
      'infra/variables.tf': 'variable "orders_workers" {\n  type    = number\n  default = 8 # nightly\n}\n',
    };
    const byDefault = await editTerraform(
      memoryCodeTree(files),
      { path: 'infra/jobs.tf' },
      jobEdit({ num_workers: 5 }),
    );
    expect(byDefault.changes).toEqual([
      {
        path: 'infra/variables.tf',
        before: files['infra/variables.tf'],
        after: 'variable "orders_workers" {\n  type    = number\n  default = 5 # nightly\n}\n',
      },
    ]);
    expect(byDefault.notes).toEqual([
      'databricks_job.orders.job_cluster[job_cluster_key = "etl"].new_cluster.num_workers: var.orders_workers\'s default in infra/variables.tf, 8 → 5',
    ]);

    const withTfvars = {
      ...files,
      'infra/terraform.tfvars': 'orders_workers = 10\n',
      'envs/prod.tfvars': '# production\norders_workers = 12\n',
    };
    const named = await editTerraform(
      memoryCodeTree(withTfvars),
      { path: 'infra/jobs.tf', tfvars: 'envs/prod.tfvars' },
      jobEdit({ num_workers: 5 }),
    );
    expect(named.changes.map((change) => [change.path, change.after])).toEqual([
      ['envs/prod.tfvars', '# production\norders_workers = 5\n'],
    ]);
    const automatic = await editTerraform(
      memoryCodeTree(withTfvars),
      { path: 'infra/jobs.tf' },
      jobEdit({ num_workers: 5 }),
    );
    expect(automatic.changes.map((change) => [change.path, change.after])).toEqual([
      ['infra/terraform.tfvars', 'orders_workers = 5\n'],
    ]);
  });

  it('refuses, naming the expression, what it cannot rewrite, and never returns a broken file', async () => {
    const refusal = async (files: Record<string, string>, fields: DesiredFields = { num_workers: 5 }) => {
      const error = await editTerraform(
        memoryCodeTree(files),
        { path: 'infra/jobs.tf' },
        jobEdit(fields),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CodeRefusal);
      return (error as Error).message;
    };
    const withWorkers = (expression: string) =>
      jobFile.replace('num_workers   = 8', `num_workers   = ${expression}`);

    expect(await refusal({ 'infra/jobs.tf': withWorkers('max(var.a, 2)') })).toContain(
      'is `max(var.a, 2)` (infra/jobs.tf:11)',
    );
    expect(
      await refusal({
        'infra/jobs.tf': withWorkers('var.workers'),
        'infra/variables.tf': 'variable "workers" {\n  type = number\n}\n',
      }),
    ).toContain(
      "var.workers (infra/variables.tf:1) has no default and no .tfvars entry Setpoint can see: it is a module input set by the module's caller",
    );
    expect(
      await refusal({
        'infra/jobs.tf': `${withWorkers('var.workers')}\nresource "databricks_job" "third" {\n  name = "x"\n  max_concurrent_runs = var.workers\n}\n`,
        'infra/variables.tf': 'variable "workers" {\n  default = 8\n}\n',
      }),
    ).toContain('which is also used at infra/jobs.tf:35: changing it would change those too');
    expect(
      await refusal({
        'infra/jobs.tf': withWorkers('local.workers'),
        'infra/locals.tf': 'locals {\n  workers = var.base * 2\n}\n',
      }),
    ).toContain('local.workers, set to `var.base * 2` in infra/locals.tf:2');
    expect(
      await refusal(
        {
          'infra/jobs.tf': jobFile.replace(
            / {6}aws_attributes \{[^}]*\}\n/,
            '      dynamic "aws_attributes" {\n        for_each = []\n        content {}\n      }\n',
          ),
        },
        { aws_attributes: { block: { availability: 'ON_DEMAND' } } },
      ),
    ).toContain('generated by a dynamic "aws_attributes" block');
    expect(await refusal({ 'infra/jobs.tf': jobFile.replace('"Orders nightly"', '"Renamed"') })).toContain(
      'has no databricks_job with name = "Orders nightly" (it has databricks_job.orders, databricks_job.other)',
    );
    expect(await refusal({ 'infra/jobs.tf': `${jobFile}\nresource "broken" {\n` })).toContain(
      'infra/jobs.tf does not parse as HCL',
    );
  });

  it('edits a task cluster, a resource the link names, and a file written with CRLF line ends', async () => {
    const taskFile = jobFile
      .replace(/ {2}job_cluster \{[\s\S]*?\n {2}\}\n\n/, '')
      .replace(
        '    job_cluster_key = "etl"\n  }',
        '\n    new_cluster {\n      node_type_id = "i3.xlarge"\n      num_workers  = 8\n    }\n  }',
      )
      .replaceAll('\n', '\r\n');
    const outcome = await editTerraform(
      memoryCodeTree({ 'jobs.tf': taskFile }),
      { path: 'jobs.tf', resource: 'databricks_job.orders' },
      {
        format: 'terraform',
        resources: [
          {
            type: 'databricks_job',
            match: { attribute: 'name', equals: 'not used when the link names it' },
            path: [{ field: 'task', where: { task_key: 'main' } }, { field: 'new_cluster' }],
            fields: { num_workers: 3, runtime_engine: 'PHOTON' },
          },
        ],
      },
    );
    const after = outcome.changes[0]?.after ?? '';
    expect(after).toContain(
      '    new_cluster {\r\n      node_type_id = "i3.xlarge"\r\n      num_workers  = 3\r\n\r\n      runtime_engine = "PHOTON"\r\n    }\r\n',
    );
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('finds an EMR task group by the cluster it references, replaces EBS blocks, and adds a missing group', async () => {
    const emrFile = `resource "aws_emr_cluster" "orders" {
  name          = "orders-nightly"
  release_label = "emr-7.2.0"

  master_instance_group {
    instance_type = "m5.xlarge"
  }

  core_instance_group {
    instance_type  = "r5.2xlarge"
    instance_count = 2

    ebs_config {
      size                 = 64
      type                 = "gp3"
      volumes_per_instance = 1
    }
  }
}
`;
    const edit = (task: number): TerraformEdit => ({
      format: 'terraform',
      resources: [
        {
          type: 'aws_emr_cluster',
          match: { attribute: 'name', equals: 'orders-nightly' },
          path: [],
          fields: {
            master_instance_group: { block: { instance_type: 'm5.large' } },
            core_instance_group: {
              block: {
                instance_type: 'm5.2xlarge',
                instance_count: 3,
                ebs_config: { blocks: [{ size: 128, type: 'gp3', volumes_per_instance: 2 }] },
              },
            },
          },
        },
        {
          type: 'aws_emr_instance_group',
          match: { attribute: 'cluster_id', references: { resource: 0, attribute: 'id' } },
          path: [],
          fields: { instance_type: 'm5.2xlarge', instance_count: task },
          whenMissing:
            task === 0
              ? 'skip'
              : {
                  append: {
                    suffix: '_task',
                    fields: {
                      cluster_id: { reference: { resource: 0, attribute: 'id' } },
                      name: 'Task',
                      instance_type: 'm5.2xlarge',
                      instance_count: task,
                    },
                  },
                },
        },
      ],
    });
    const outcome = await editTerraform(memoryCodeTree({ 'emr.tf': emrFile }), { path: 'emr.tf' }, edit(4));
    const after = outcome.changes[0]?.after ?? '';
    expect(after).toBe(`resource "aws_emr_cluster" "orders" {
  name          = "orders-nightly"
  release_label = "emr-7.2.0"

  master_instance_group {
    instance_type = "m5.large"
  }

  core_instance_group {
    instance_type  = "m5.2xlarge"
    instance_count = 3

    ebs_config {
      size                 = 128
      type                 = "gp3"
      volumes_per_instance = 2
    }
  }
}

resource "aws_emr_instance_group" "orders_task" {
  cluster_id     = aws_emr_cluster.orders.id
  name           = "Task"
  instance_type  = "m5.2xlarge"
  instance_count = 4
}
`);
    const parsed = (await parse('emr.tf', after)) as { resource: Record<string, unknown> };
    expect(Object.keys(parsed.resource)).toEqual(['aws_emr_cluster', 'aws_emr_instance_group']);
    // the group now exists: a smaller recommendation edits it where it stands
    const next = await editTerraform(memoryCodeTree({ 'emr.tf': after }), { path: 'emr.tf' }, edit(0));
    expect(next.changes[0]?.after).toBe(after.replace('instance_count = 4', 'instance_count = 0'));
    const same = await editTerraform(memoryCodeTree({ 'emr.tf': after }), { path: 'emr.tf' }, edit(4));
    expect(same.changes).toEqual([]);
  });
});
