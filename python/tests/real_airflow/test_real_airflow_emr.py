"""Real Airflow: `airflow dags test` runs an EmrCreateJobFlowOperator (Amazon provider, boto3) with Setpoint's
`pre_execute` hook against the emulator's EMR face and a running Setpoint server.

Runs only in the Airflow venv (`python/.venv-airflow`, from `requirements-airflow.txt`).
"""

from __future__ import annotations

from typing import Any

import pytest

from airflow_support import run_dag


def _amazon_provider_installed() -> bool:
    try:
        import airflow.providers.amazon.aws.operators.emr  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = [
    pytest.mark.airflow,
    pytest.mark.skipif(
        not _amazon_provider_installed(),
        reason="apache-airflow and apache-airflow-providers-amazon are not installed: run this file "
        "with python/.venv-airflow/bin/pytest (see python/README.md)",
    ),
]

PROJECT_TAG = "setpoint:project-id"


@pytest.fixture(scope="module")
def emr(databricks_emulator):
    import boto3

    return boto3.client(
        "emr",
        endpoint_url=databricks_emulator.url,
        region_name="us-east-1",
        aws_access_key_id="AKIAEMULATOR",
        aws_secret_access_key="emulator-secret",
    )


def launched(emr, name: str) -> dict[str, Any]:
    """The one cluster the DAG launched under `name`, with its instance groups."""
    clusters = [cluster for cluster in emr.list_clusters()["Clusters"] if cluster["Name"] == name]
    assert len(clusters) == 1, f"expected one cluster named {name}, got {[c['Name'] for c in emr.list_clusters()['Clusters']]}"
    cluster = emr.describe_cluster(ClusterId=clusters[0]["Id"])["Cluster"]
    cluster["groups"] = {group["InstanceGroupType"]: group for group in emr.list_instance_groups(ClusterId=cluster["Id"])["InstanceGroups"]}
    return cluster


def spark_defaults(cluster: dict[str, Any]) -> dict[str, str]:
    for configuration in cluster.get("Configurations") or []:
        if configuration.get("Classification") == "spark-defaults":
            return configuration.get("Properties") or {}
    return {}


def test_the_operator_launches_a_tagged_cluster_that_keeps_its_event_logs(airflow_env, emr, setpoint_server):
    env = {**airflow_env, **setpoint_server.env()}
    client = setpoint_server.client()

    output = run_dag(env, "setpoint_emr_orders", {"SETPOINT_TEST_CLUSTER_NAME": "orders-emr-first", "SETPOINT_TEST_APP_ID": "orders-emr"})

    project = client.find_project_by_app_id("orders-emr")
    assert project is not None
    assert f"setpoint: sized orders_etl for project {project['id']}" in output
    cluster = launched(emr, "orders-emr-first")
    tags = {tag["Key"]: tag["Value"] for tag in cluster["Tags"]}
    assert tags[PROJECT_TAG] == project["id"]
    # No recommendation yet: the capacity is as written, and the event logs go to S3 so they outlive the cluster.
    assert cluster["groups"]["CORE"]["InstanceType"] == "r5.2xlarge"
    assert cluster["groups"]["CORE"]["RequestedInstanceCount"] == 3
    assert spark_defaults(cluster)["spark.eventLog.dir"] == "s3://spark-events/orders/"
    assert cluster["Ec2InstanceAttributes"]["Ec2SubnetId"] == "subnet-0example"


def test_an_unreachable_setpoint_leaves_the_job_flow_as_written_and_it_still_launches(airflow_env, emr):
    env = {
        **airflow_env,
        "SETPOINT_URL": "http://127.0.0.1:9",
        "SETPOINT_API_KEY_ID": "spk_unused",
        "SETPOINT_API_KEY_SECRET": "sps_unused",
    }

    output = run_dag(env, "setpoint_emr_orders", {"SETPOINT_TEST_CLUSTER_NAME": "orders-emr-unreachable", "SETPOINT_TEST_APP_ID": "orders-emr-unreachable"})

    assert "setpoint: leaving the EMR cluster unchanged" in output
    cluster = launched(emr, "orders-emr-unreachable")
    assert not any(tag["Key"].startswith("setpoint:") for tag in cluster["Tags"])
    assert cluster["groups"]["CORE"]["InstanceType"] == "r5.2xlarge"
    assert cluster["groups"]["CORE"]["RequestedInstanceCount"] == 3
    assert "spark.eventLog.dir" not in spark_defaults(cluster)
