import { describe, expect, it } from 'vitest';
import { CodeRefusal, type DagEdit, type DesiredFields } from '../code-edit.js';
import { memoryCodeTree } from '../memory-code-tree.test-helpers.js';
import { editDag } from './dag-editor.js';

const databricksDag = `from airflow import DAG
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

CLUSTER = {
    "spark_version": "15.4.x-scala2.12",
    "node_type_id": "i3.xlarge",  # sized by hand
    "num_workers": 8,
    "aws_attributes": {"availability": "SPOT_WITH_FALLBACK"},
}

with DAG("orders") as dag:
    DatabricksSubmitRunOperator(
        task_id="orders_etl",
        new_cluster=CLUSTER,
        spark_python_task={"python_file": "dbfs:/jobs/orders.py"},
    )
`;

const emrDag = `from airflow.providers.amazon.aws.operators.emr import EmrCreateJobFlowOperator

JOB_FLOW_OVERRIDES = {
    'Name': 'orders',
    'Instances': {
        'InstanceGroups': [
            {'Name': 'Primary', 'InstanceRole': 'MASTER', 'InstanceType': 'm5.xlarge', 'InstanceCount': 1},
            {
                'Name': 'Core',
                'InstanceRole': 'CORE',
                'InstanceType': 'r5.2xlarge',
                'InstanceCount': 2,
            },
            {'Name': 'Task', 'InstanceRole': 'TASK', 'Market': 'SPOT', 'InstanceType': 'r5.2xlarge', 'InstanceCount': 6},
        ],
        'KeepJobFlowAliveWhenNoSteps': False,
    },
}

create = EmrCreateJobFlowOperator(task_id='create', job_flow_overrides=JOB_FLOW_OVERRIDES)
`;

function databricksEdit(fields: DesiredFields): DagEdit {
  return {
    format: 'airflow',
    operators: ['DatabricksSubmitRunOperator'],
    locations: [
      { argument: 'new_cluster', path: [] },
      { argument: 'json', path: [{ field: 'new_cluster' }] },
    ],
    fields,
    fallback: 'setpoint.airflow.pre_execute_hook',
  };
}

describe('editDag', () => {
  it('edits the dict the operator names, keeping comments, quotes and layout', async () => {
    const recommendation = databricksEdit({
      node_type_id: 'r5d.xlarge',
      driver_node_type_id: 'm5.large',
      num_workers: null,
      autoscale: { block: { min_workers: 2, max_workers: 6 } },
      aws_attributes: { block: { availability: 'ON_DEMAND', first_on_demand: 1 } },
    });
    const outcome = await editDag(
      memoryCodeTree({ 'dags/orders.py': databricksDag }),
      { path: 'dags/orders.py' },
      recommendation,
    );
    const after = outcome.changes[0]?.after;
    expect(after).toBe(
      databricksDag.replace(
        `    "node_type_id": "i3.xlarge",  # sized by hand
    "num_workers": 8,
    "aws_attributes": {"availability": "SPOT_WITH_FALLBACK"},
`,
        `    "node_type_id": "r5d.xlarge",  # sized by hand
    "aws_attributes": {"availability": "ON_DEMAND", "first_on_demand": 1},
    "driver_node_type_id": "m5.large",
    "autoscale": {"min_workers": 2, "max_workers": 6},
`,
      ),
    );
    const again = await editDag(
      memoryCodeTree({ 'dags/orders.py': after ?? '' }),
      { path: 'dags/orders.py' },
      recommendation,
    );
    expect(again.changes).toEqual([]);
  });

  it('edits a runs/submit payload inline and EMR instance groups by role', async () => {
    const inline = `op = DatabricksSubmitRunOperator(task_id="a", json={"new_cluster": {"num_workers": 2, "node_type_id": 'i3.xlarge'}})\n`;
    const outcome = await editDag(
      memoryCodeTree({ 'dag.py': inline }),
      { path: 'dag.py' },
      databricksEdit({ num_workers: 4, node_type_id: 'm5.xlarge', runtime_engine: 'PHOTON' }),
    );
    expect(outcome.changes[0]?.after).toBe(
      `op = DatabricksSubmitRunOperator(task_id="a", json={"new_cluster": {"num_workers": 4, "node_type_id": 'm5.xlarge', "runtime_engine": "PHOTON"}})\n`,
    );

    const emr = await editDag(
      memoryCodeTree({ 'dags/emr.py': emrDag }),
      { path: 'dags/emr.py', taskId: 'create' },
      {
        format: 'airflow',
        operators: ['EmrCreateJobFlowOperator'],
        locations: [{ argument: 'job_flow_overrides', path: [] }],
        fallback: 'setpoint.emr_airflow.pre_execute_hook',
        fields: {
          Instances: {
            block: {
              InstanceGroups: {
                keyed: {
                  key: 'InstanceRole',
                  entries: {
                    MASTER: { InstanceType: 'm5.large' },
                    CORE: { InstanceType: 'm5.2xlarge', InstanceCount: 4 },
                    TASK: null,
                  },
                },
              },
            },
          },
        },
      },
    );
    expect(emr.changes[0]?.after).toBe(
      emrDag
        .replace("'InstanceType': 'm5.xlarge'", "'InstanceType': 'm5.large'")
        .replace(
          "'InstanceType': 'r5.2xlarge',\n                'InstanceCount': 2",
          "'InstanceType': 'm5.2xlarge',\n                'InstanceCount': 4",
        )
        .replace(/ {12}\{'Name': 'Task'.*\n/, ''),
    );
  });

  it('refuses a cluster that is computed, shared or missing, pointing to the pre-execute hook', async () => {
    const refusal = async (text: string, taskId?: string) => {
      const error = await editDag(
        memoryCodeTree({ 'dag.py': text }),
        { path: 'dag.py', taskId },
        databricksEdit({ num_workers: 4 }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CodeRefusal);
      return (error as Error).message;
    };
    expect(
      await refusal(databricksDag.replace('"num_workers": 8', '"num_workers": Variable.get("workers")')),
    ).toContain(
      'DatabricksSubmitRunOperator.new_cluster["num_workers"] is `Variable.get("workers")` (dag.py:7), not a literal Setpoint can rewrite; use setpoint.airflow.pre_execute_hook as the operator\'s pre_execute instead',
    );
    expect(
      await refusal(databricksDag.replace('new_cluster=CLUSTER', 'new_cluster=make_cluster()')),
    ).toContain('is `make_cluster()`');
    expect(
      await refusal(
        `${databricksDag}    DatabricksSubmitRunOperator(task_id="other", new_cluster=CLUSTER)\n`,
        'orders_etl',
      ),
    ).toContain('which is also used at dag.py:17');
    expect(await refusal(databricksDag, 'missing')).toContain(
      'has no DatabricksSubmitRunOperator with task_id "missing"',
    );
    expect(await refusal(databricksDag.replace('    "num_workers": 8,\n', '    **BASE,\n'))).toContain(
      'unpacks another dict with **',
    );
  });
});
