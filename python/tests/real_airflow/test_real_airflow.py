"""Real Airflow: `airflow dags test` runs a DatabricksSubmitRunOperator with Setpoint's hooks against
the workspace emulator and a running Setpoint server.

Runs only in the Airflow venv (`python/.venv-airflow`, from `requirements-airflow.txt`), which keeps
Airflow's dependency pins away from the main test venv.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from airflow_support import run_dag
from setpoint.databricks import DatabricksWorkspace


def _airflow_installed() -> bool:
    try:
        import airflow.providers.databricks.operators.databricks  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = [
    pytest.mark.airflow,
    pytest.mark.skipif(
        not _airflow_installed(),
        reason="apache-airflow and apache-airflow-providers-databricks are not installed: run this file "
        "with python/.venv-airflow/bin/pytest (see python/README.md)",
    ),
]

WRITTEN_CLUSTER = {
    "spark_version": "15.4.x-scala2.12",
    "node_type_id": "m5.xlarge",
    "autoscale": {"min_workers": 2, "max_workers": 4},
}


@pytest.fixture(scope="module")
def workspace(databricks_emulator):
    with DatabricksWorkspace(host=databricks_emulator.url, token=databricks_emulator.token) as connected:
        yield connected


def run_orders_dag(env: dict[str, str], run_name: str, app_id: str) -> str:
    return run_dag(
        env,
        "setpoint_orders",
        {"SETPOINT_TEST_RUN_NAME": run_name, "SETPOINT_TEST_APP_ID": app_id, "SETPOINT_TEST_CLUSTER": json.dumps(WRITTEN_CLUSTER)},
    )


def received_run(workspace: DatabricksWorkspace, run_name: str) -> dict[str, Any]:
    """The one-time run the emulator received under `run_name`, as runs/get reports it."""
    listed = workspace.request("GET", "/api/2.1/jobs/runs/list", params={"run_type": "SUBMIT_RUN", "limit": 25})
    matches = [run for run in listed.get("runs") or [] if run.get("run_name") == run_name]
    assert len(matches) == 1, f"expected one run named {run_name}, got {[run.get('run_name') for run in listed.get('runs') or []]}"
    return workspace.get_run(matches[0]["run_id"])


def recorded(client, project_id: str, databricks_run_id: int) -> dict[str, Any]:
    runs = [run for run in client.list_runs(project_id) if run["external_run_id"] == str(databricks_run_id)]
    assert len(runs) == 1, f"Setpoint has no run {databricks_run_id} in project {project_id}"
    return client.wait_for_run(project_id, runs[0]["id"], timeout_s=120, poll_s=0.5)


def assert_applied(received: Any, recommended: Any, path: str) -> None:
    if isinstance(recommended, dict):
        for key, value in recommended.items():
            assert_applied((received or {}).get(key), value, f"{path}.{key}")
    else:
        assert received == recommended, f"{path}: the run used {received!r}, Setpoint recommended {recommended!r}"


def test_the_operator_runs_on_the_recommended_cluster_and_setpoint_records_it(airflow_env, workspace, setpoint_server):
    app_id = "orders-etl-airflow"
    env = {**airflow_env, **setpoint_server.env()}
    client = setpoint_server.client()

    # First run: no recommendation yet, so the job runs as written; post_execute records it.
    run_orders_dag(env, "orders-bootstrap", app_id)
    bootstrap = received_run(workspace, "orders-bootstrap")
    project = client.find_project_by_app_id(app_id)
    assert project is not None
    first = recorded(client, project["id"], bootstrap["run_id"])
    assert first["pipeline_state"] == "DONE", first.get("error")
    recommendation = client.wait_for_recommendation(
        project["id"], client.create_recommendation(project["id"])["id"], timeout_s=120, poll_s=0.5
    )
    assert recommendation["state"] == "SUCCESS", recommendation

    output = run_orders_dag(env, "orders-sized", app_id)

    assert f"setpoint: sized orders_etl for project {project['id']}" in output
    sized = received_run(workspace, "orders-sized")
    cluster = sized["tasks"][0]["new_cluster"]
    configuration = recommendation["configuration"]
    assert_applied(cluster, configuration, "new_cluster")
    for sizing in ("num_workers", "autoscale"):
        if sizing not in configuration:
            assert sizing not in cluster, f"the written {sizing} survived the recommendation"
    assert cluster["custom_tags"]["setpoint:project-id"] == project["id"]
    assert cluster["custom_tags"]["setpoint:recommendation-id"] == recommendation["id"]
    assert cluster["cluster_log_conf"] == {"dbfs": {"destination": "dbfs:/cluster-logs"}}
    second = recorded(client, project["id"], sized["run_id"])
    assert second["pipeline_state"] == "DONE", second.get("error")
    assert second["status"] == sized["state"]["result_state"]
    assert second["cluster"]["nodeTypeId"] == configuration["node_type_id"]
    assert second["eventlog_bytes"] > 0


def test_an_unreachable_setpoint_leaves_the_job_as_written_and_it_still_runs(airflow_env, workspace):
    env = {
        **airflow_env,
        "SETPOINT_URL": "http://127.0.0.1:9",
        "SETPOINT_API_KEY_ID": "spk_unused",
        "SETPOINT_API_KEY_SECRET": "sps_unused",
    }

    output = run_orders_dag(env, "orders-unreachable", "orders-etl-unreachable")

    assert "setpoint: leaving the cluster unchanged: cannot reach Setpoint at http://127.0.0.1:9" in output
    # Without Setpoint the hook added no log delivery, so there is no event log to record either.
    assert "setpoint: could not record the run: cluster " in output
    assert "delivers no logs to DBFS or a Volume" in output
    run = received_run(workspace, "orders-unreachable")
    assert run["state"]["result_state"] == "SUCCESS"
    cluster = run["tasks"][0]["new_cluster"]
    assert cluster["node_type_id"] == WRITTEN_CLUSTER["node_type_id"]
    assert cluster["autoscale"] == WRITTEN_CLUSTER["autoscale"]
    assert "num_workers" not in cluster
    assert "cluster_log_conf" not in cluster
    assert not any(tag.startswith("setpoint:") for tag in cluster.get("custom_tags") or {})
