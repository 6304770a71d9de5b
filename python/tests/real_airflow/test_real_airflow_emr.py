"""Real Airflow: `airflow dags test` runs an EmrCreateJobFlowOperator (Amazon provider, boto3) with Setpoint's
`pre_execute` hook against the emulator's EMR face and a running Setpoint server.

Runs only in the Airflow venv (`python/.venv-airflow`, from `requirements-airflow.txt`).
"""

from __future__ import annotations

import time
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


def eventually(what: str, probe, timeout_s: float = 120.0, poll_s: float = 0.5):
    """The first truthy answer of `probe`, polled until `timeout_s` (then the test fails naming `what`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer = probe()
        if answer:
            return answer
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(poll_s)


def collected(client, project_id: str, cluster_id: str) -> dict[str, Any]:
    """The run Setpoint collected from the cluster's step, once its pipeline has finished."""

    def finished():
        runs = [run for run in client.list_runs(project_id) if run["external_run_id"].startswith(f"{cluster_id}:")]
        return runs[0] if runs and runs[0]["pipeline_state"] in ("DONE", "FAILED") else None

    return eventually(f"Setpoint to collect the step of {cluster_id}", finished)


def groups_by_role(groups: list[dict[str, Any]], role_key: str, count_key: str) -> dict[str, tuple[str, int, str]]:
    return {
        group[role_key]: (group["InstanceType"], group[count_key], group.get("Market", "ON_DEMAND")) for group in groups
    }


def test_the_loop_closes_launch_collect_recommend_and_the_next_launch_takes_it(
    airflow_env, emr, setpoint_server, databricks_emulator
):
    client = setpoint_server.client()
    # The EMR account Setpoint collects from: the emulator's EMR face and the S3 its steps write their logs to.
    account = client.request(
        "POST",
        "/api/v1/emr/accounts",
        json={
            "name": "airflow account",
            "region": "us-east-1",
            "endpoint": databricks_emulator.url,
            "s3_endpoint": f"{databricks_emulator.url}/s3",
            "credentials": {"kind": "access-keys", "access_key_id": "AKIASETPOINTTEST", "secret_access_key": "emulator-secret"},
            "grouping": {"kind": "tag", "key": PROJECT_TAG},
        },
    )
    env = {**airflow_env, **setpoint_server.env(), "SETPOINT_TEST_EMR_ACCOUNT_ID": account["id"]}

    # First launch: no recommendation yet, so the cluster is as written; its step is handed to Setpoint.
    output = run_dag(env, "setpoint_emr_orders", {"SETPOINT_TEST_CLUSTER_NAME": "orders-emr-first", "SETPOINT_TEST_APP_ID": "orders-emr"})

    project = client.find_project_by_app_id("orders-emr")
    assert project is not None
    assert project["workspace_id"] == account["id"]
    assert f"setpoint: sized orders_etl for project {project['id']}" in output
    first_cluster = launched(emr, "orders-emr-first")
    assert f"setpoint: queued collection of 1 step of cluster {first_cluster['Id']} for project {project['id']}" in output
    tags = {tag["Key"]: tag["Value"] for tag in first_cluster["Tags"]}
    assert tags[PROJECT_TAG] == project["id"]
    assert "setpoint:recommendation-id" not in tags
    # The capacity is as written, and the event logs go to S3 so they outlive the cluster.
    assert first_cluster["groups"]["CORE"]["InstanceType"] == "r5.2xlarge"
    assert first_cluster["groups"]["CORE"]["RequestedInstanceCount"] == 3
    assert spark_defaults(first_cluster)["spark.eventLog.dir"] == "s3://spark-events/orders/"
    assert first_cluster["Ec2InstanceAttributes"]["Ec2SubnetId"] == "subnet-0example"
    assert first_cluster["Status"]["State"] == "TERMINATED"

    # Setpoint collects the step from the account (event log from S3, instances' timeline), costs it and recommends.
    first = collected(client, project["id"], first_cluster["Id"])
    assert first["pipeline_state"] == "DONE", first.get("error")
    assert first["status"] == "SUCCESS"
    assert first["eventlog_bytes"] > 0
    assert first["cost"]["total_usd"] > 0
    eventually(
        "the recommendation made from the first launch",
        lambda: (
            latest
            if (latest := client.get_latest_recommendation(project["id"]))
            and latest["state"] == "SUCCESS"
            and latest["based_on_run_id"] == first["id"]
            else None
        ),
    )
    # One launch says little, so that recommendation may keep the cluster. The team caps the job at 2 worker
    # nodes: the written cluster (3 core nodes) is now outside the project's bounds, so the next
    # recommendation must change its shape, and the next launch must take that change.
    client.update_project(project["id"], settings={"maxWorkers": 2})
    recommendation = client.wait_for_recommendation(
        project["id"], client.create_recommendation(project["id"])["id"], timeout_s=120.0, poll_s=0.5
    )
    assert recommendation["state"] == "SUCCESS", recommendation.get("error")
    assert recommendation["decision"]["action"] == "change", recommendation["explanation"]
    recommended = recommendation["configuration"]["Instances"]["InstanceGroups"]
    workers = sum(group["InstanceCount"] for group in recommended if group["InstanceRole"] in ("CORE", "TASK"))
    assert 1 <= workers <= 2

    # Second launch: the hook merges the recommendation into the request; the cluster launches on it.
    output = run_dag(env, "setpoint_emr_orders", {"SETPOINT_TEST_CLUSTER_NAME": "orders-emr-sized", "SETPOINT_TEST_APP_ID": "orders-emr"})

    sized = launched(emr, "orders-emr-sized")
    tags = {tag["Key"]: tag["Value"] for tag in sized["Tags"]}
    assert tags[PROJECT_TAG] == project["id"]
    assert tags["setpoint:recommendation-id"] == recommendation["id"]
    assert groups_by_role(list(sized["groups"].values()), "InstanceGroupType", "RequestedInstanceCount") == groups_by_role(
        recommended, "InstanceRole", "InstanceCount"
    )
    assert sum(
        group["RequestedInstanceCount"] for group in sized["groups"].values() if group["InstanceGroupType"] in ("CORE", "TASK")
    ) == workers
    # what the request wrote outside the capacity stays
    assert sized["Ec2InstanceAttributes"]["Ec2SubnetId"] == "subnet-0example"
    assert spark_defaults(sized)["spark.eventLog.dir"] == "s3://spark-events/orders/"

    # and Setpoint learns from the sized launch too: the loop goes on.
    assert f"setpoint: queued collection of 1 step of cluster {sized['Id']} for project {project['id']}" in output
    second = collected(client, project["id"], sized["Id"])
    assert second["pipeline_state"] == "DONE", second.get("error")
    assert second["status"] == "SUCCESS"
    assert second["eventlog_bytes"] > 0

    # The launch that took the recommendation is the project's apply history: applied, by the DAG's task.
    launcher = "airflow:setpoint_emr_orders.orders_etl"
    assert tags["setpoint:launched-by"] == launcher
    history = client.request("GET", f"/api/v1/projects/{project['id']}/applied-configs")
    assert history["writer"] == "launcher"
    assert [(item["kind"], item["recommendation_id"], item["actor"]) for item in history["items"]] == [
        ("apply", recommendation["id"], launcher)
    ]
    assert history["items"][0]["cluster"]["cluster_id"] == sized["Id"]
    assert history["items"][0]["reason"].startswith("launched as recommended")
    assert client.get_recommendation(project["id"], recommendation["id"])["applied"]["requested_by"] == launcher


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
