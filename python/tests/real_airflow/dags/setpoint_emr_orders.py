"""The DAG the real-Airflow EMR test runs: the Airflow example of docs/emr.md, pointed at the emulator's EMR face.

`test_real_airflow_emr.py` sets the cluster name, the Setpoint app id and EMR account through SETPOINT_TEST_*
environment variables, and the AWS connection (with the emulator as `endpoint_url`) through
AIRFLOW_CONN_AWS_EMULATOR. The operator waits for the cluster to finish its step and terminate, then hands
the step to Setpoint.
"""

import os

from airflow.providers.amazon.aws.operators.emr import EmrCreateJobFlowOperator
from airflow.providers.amazon.aws.utils.waiter import WaitPolicy
from airflow.sdk import DAG

import setpoint.emr_airflow

JOB_FLOW = {
    "Name": os.environ.get("SETPOINT_TEST_CLUSTER_NAME", "orders-etl"),
    "ReleaseLabel": "emr-6.15.0",
    "LogUri": "s3://emr-logs/orders/",
    "Applications": [{"Name": "Spark"}],
    "Instances": {
        "KeepJobFlowAliveWhenNoSteps": False,
        "Ec2SubnetId": "subnet-0example",
        "InstanceGroups": [
            {"Name": "Primary", "InstanceRole": "MASTER", "InstanceType": "m5.xlarge", "InstanceCount": 1},
            {"Name": "Core", "InstanceRole": "CORE", "InstanceType": "r5.2xlarge", "InstanceCount": 3},
        ],
    },
    "Steps": [
        {
            "Name": "orders-etl",
            "ActionOnFailure": "TERMINATE_CLUSTER",
            "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "s3://jobs/daily-aggregation.py"]},
        }
    ],
    "JobFlowRole": "EMR_EC2_DefaultRole",
    "ServiceRole": "EMR_DefaultRole",
}

with DAG("setpoint_emr_orders", schedule=None, catchup=False):
    EmrCreateJobFlowOperator(
        task_id="orders_etl",
        aws_conn_id="aws_emulator",
        emr_conn_id=None,
        region_name="us-east-1",
        job_flow_overrides=JOB_FLOW,
        params={
            "setpoint_app_id": os.environ.get("SETPOINT_TEST_APP_ID", "orders-etl-emr"),
            "setpoint_auto_apply": True,
            "setpoint_workspace_id": os.environ.get("SETPOINT_TEST_EMR_ACCOUNT_ID"),
            "setpoint_event_log_dir": "s3://spark-events/orders/",
        },
        wait_policy=WaitPolicy.WAIT_FOR_STEPS_COMPLETION,
        waiter_delay=1,
        waiter_max_attempts=300,
        pre_execute=setpoint.emr_airflow.pre_execute_hook,
        post_execute=setpoint.emr_airflow.post_execute_hook,
    )
