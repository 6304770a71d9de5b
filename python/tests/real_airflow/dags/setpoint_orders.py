"""The DAG the real-Airflow test runs: python/README.md's example, pointed at the workspace emulator.

`test_real_airflow.py` sets the run name, the cluster as written and the Setpoint app id through
SETPOINT_TEST_* environment variables, and the Databricks connection through AIRFLOW_CONN_DATABRICKS_EMULATOR.
"""

import json
import os

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG

import setpoint.airflow

with DAG("setpoint_orders", schedule=None, catchup=False):
    DatabricksSubmitRunOperator(
        task_id="orders_etl",
        databricks_conn_id="databricks_emulator",
        json={
            "run_name": os.environ.get("SETPOINT_TEST_RUN_NAME", "orders-etl"),
            "tasks": [
                {
                    "task_key": "main",
                    "spark_python_task": {"python_file": "dbfs:/jobbank/daily-aggregation.py"},
                    "new_cluster": json.loads(os.environ.get("SETPOINT_TEST_CLUSTER", "{}")),
                }
            ],
        },
        params={
            "setpoint_app_id": os.environ.get("SETPOINT_TEST_APP_ID", "orders-etl"),
            "setpoint_auto_apply": True,
            "cluster_log_url": "dbfs:/cluster-logs",
            "setpoint_record_poll_s": 0.5,
            "setpoint_record_timeout_s": 120,
        },
        pre_execute=setpoint.airflow.pre_execute_hook,
        post_execute=setpoint.airflow.post_execute_hook,
        polling_period_seconds=1,
        do_xcom_push=True,
    )
