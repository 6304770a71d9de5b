"""setpoint.databricks: recording a run from inside the workspace, against the emulator and a real server."""

import base64
import json
import os
import subprocess
import sys

import httpx
import pytest

from setpoint.cluster import PROJECT_TAG
from setpoint.databricks import DatabricksWorkspace, collect_run, record_run
from setpoint.databricks.collect import event_log_parts, incomplete_reason, status_of, tasks_to_collect
from setpoint.databricks.workspace import LogFile
from setpoint.errors import SetpointError, SetpointTimeoutError

CLUSTER = {"spark_version": "15.4.x-scala2.12", "node_type_id": "m5d.xlarge", "num_workers": 4}


@pytest.fixture(scope="module")
def workspace(databricks_emulator):
    with DatabricksWorkspace(host=databricks_emulator.url, token=databricks_emulator.token) as connected:
        yield connected


def submit(workspace, run_name, cluster):
    body = {
        "run_name": run_name,
        "tasks": [{"task_key": "main", "spark_python_task": {"python_file": "dbfs:/jobbank/daily-aggregation.py"}, "new_cluster": cluster}],
    }
    return workspace.request("POST", "/api/2.1/jobs/runs/submit", json=body)["run_id"]


def delivered_bytes(workspace, run_id):
    run = workspace.get_run(run_id)
    instance = run["tasks"][0]["cluster_instance"]
    root = f"dbfs:/cluster-logs/{instance['cluster_id']}/eventlog"
    driver = workspace.list_dir(root)[0].path
    return sum(part.size for part in event_log_parts(workspace.list_dir(f"{driver}/{instance['spark_context_id']}")))


def test_the_module_entry_records_a_run_in_the_project_named_by_the_cluster_tag(workspace, databricks_emulator, setpoint_server):
    client = setpoint_server.client()
    project = client.create_project("orders-dbfs", app_id="orders-dbfs")
    cluster = {**CLUSTER, "cluster_log_conf": {"dbfs": {"destination": "dbfs:/cluster-logs"}}, "custom_tags": {PROJECT_TAG: project["id"]}}
    run_id = submit(workspace, "orders-dbfs", cluster)

    completed = subprocess.run(
        [sys.executable, "-m", "setpoint.databricks.record_run", "--run-id", str(run_id), "--poll", "0.2", "--timeout", "120"],
        env={**os.environ, **setpoint_server.env(), "DATABRICKS_HOST": databricks_emulator.url, "DATABRICKS_TOKEN": databricks_emulator.token},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert completed.returncode == 0, completed.stderr
    submitted = json.loads(completed.stdout)
    assert submitted["project_id"] == project["id"]
    assert submitted["external_run_id"] == str(run_id)
    assert submitted["status"] == "SUCCESS"
    parsed = client.wait_for_run(project["id"], submitted["id"], timeout_s=120, poll_s=0.5)
    assert parsed["pipeline_state"] == "DONE", parsed
    assert parsed["eventlog_bytes"] == delivered_bytes(workspace, run_id)
    assert parsed["cluster"]["nodeTypeId"] == "m5d.xlarge"
    assert parsed["cluster"]["workers"] == 4
    assert parsed["profile_summary"]["executorsMax"] == 4
    assert parsed["profile_summary"]["tasks"] > 0


def test_the_function_records_from_a_volume_and_twice_is_once(workspace, setpoint_server):
    client = setpoint_server.client()
    destination = "/Volumes/main/setpoint/cluster-logs"
    workspace.request("PUT", f"/api/2.0/fs/directories{destination}")
    run_id = submit(workspace, "orders-volume", {**CLUSTER, "cluster_log_conf": {"volumes": {"destination": destination}}})

    first = record_run(run_id, workspace=workspace, client=client, app_id="orders-volume", poll_s=0.2, timeout_s=120)
    again = record_run(run_id, workspace=workspace, client=client, app_id="orders-volume", poll_s=0.2, timeout_s=120)

    assert again["id"] == first["id"]
    project = client.find_project_by_app_id("orders-volume")
    assert [run["external_run_id"] for run in client.list_runs(project["id"])] == [str(run_id)]
    parsed = client.wait_for_run(project["id"], first["id"], timeout_s=120, poll_s=0.5)
    assert parsed["pipeline_state"] == "DONE", parsed
    assert parsed["profile_summary"]["tasks"] > 0


def test_a_cluster_without_log_delivery_fails_with_one_clear_line(workspace, databricks_emulator, setpoint_server):
    run_id = submit(workspace, "orders-no-logs", CLUSTER)

    completed = subprocess.run(
        [sys.executable, "-m", "setpoint.databricks.record_run", "--run-id", str(run_id), "--app-id", "orders-no-logs",
         "--host", databricks_emulator.url, "--token", databricks_emulator.token, "--poll", "0.2", "--timeout", "120"],
        env={**os.environ, **setpoint_server.env()},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert completed.returncode == 1
    assert completed.stdout == ""
    assert completed.stderr.strip().splitlines() == [
        f"setpoint: cluster {workspace.get_run(run_id)['tasks'][0]['cluster_instance']['cluster_id']} delivers no logs "
        "to DBFS or a Volume: set cluster_log_conf on the job cluster"
    ]


def test_without_a_run_id_it_says_how_to_pass_one():
    completed = subprocess.run(
        [sys.executable, "-m", "setpoint.databricks.record_run"], capture_output=True, text=True, timeout=60
    )

    assert completed.returncode == 1
    assert completed.stderr.strip() == "setpoint: no run id: pass --run-id (in a job task: --run-id {{job.run_id}})"


def task(key, cluster_id, life_cycle="TERMINATED", result="SUCCESS", end=100):
    return {
        "task_key": key,
        "end_time": end,
        "cluster_instance": {"cluster_id": cluster_id, "spark_context_id": "7"},
        "state": {"life_cycle_state": life_cycle, "result_state": result},
    }


def test_a_recording_task_skips_itself_and_picks_the_other_cluster():
    run = {"run_id": 1, "tasks": [task("record", "c-rec", "RUNNING"), task("main", "c-main"), task("post", "c-main")]}

    chosen = tasks_to_collect(run, exclude_tasks=["record"])

    assert [t["task_key"] for t in chosen] == ["main", "post"]
    assert [t["task_key"] for t in tasks_to_collect(run, task_key="post")] == ["post", "main"]


def test_status_is_the_first_unsuccessful_task_state():
    assert status_of([task("a", "c"), task("b", "c", result="FAILED")]) == "FAILED"
    assert status_of([task("a", "c")]) == "SUCCESS"


def log(name, size=10, modified=200):
    return LogFile(path=f"dbfs:/x/{name}", name=name, is_dir=False, size=size, modified_at=modified)


def test_event_log_completeness():
    parts = [log("eventlog"), log("eventlog-2026-01-01--10-00.gz")]

    assert [p.name for p in event_log_parts(parts)] == ["eventlog-2026-01-01--10-00.gz", "eventlog"]
    assert incomplete_reason([log("eventlog-1.gz")], 100, None) == "the live eventlog file has not been delivered"
    assert incomplete_reason([log("eventlog", modified=50)], 100, 10) == "the eventlog file was last written before the tasks ended"
    assert incomplete_reason([log("eventlog"), log("eventlog-1.gz", size=0)], 100, 10) == "eventlog-1.gz is still empty"
    assert incomplete_reason(parts, 100, None) == "the log size is still changing"
    assert incomplete_reason(parts, 100, 20) is None


def test_collect_gives_up_after_the_timeout_naming_what_it_waited_for(tmp_path):
    def running(request):
        return httpx.Response(200, json={"run_id": 9, "state": {"life_cycle_state": "RUNNING"}, "tasks": [task("main", "c", "RUNNING")]})

    workspace = DatabricksWorkspace(host="https://dbc.test", token="t", transport=httpx.MockTransport(running))

    with pytest.raises(SetpointTimeoutError, match="waiting for run 9 to finish"):
        collect_run(workspace, 9, tmp_path, timeout_s=0, sleep=lambda _s: None)


def test_workspace_errors_carry_the_databricks_code():
    def missing(request):
        return httpx.Response(400, json={"error_code": "INVALID_PARAMETER_VALUE", "message": "Run 5 does not exist."})

    workspace = DatabricksWorkspace(host="dbc.test", token="t", transport=httpx.MockTransport(missing))

    with pytest.raises(SetpointError, match="Run 5 does not exist") as raised:
        workspace.get_run(5)
    assert raised.value.code == "INVALID_PARAMETER_VALUE"
    assert workspace.host == "https://dbc.test"


def test_collect_keeps_the_databricks_names_of_a_rolled_log(tmp_path):
    """A rolled part and the live file must reach Setpoint under Databricks' names, or they read as two logs."""
    root = "/logs/c1/eventlog"
    listing = {
        root: [{"path": f"{root}/c1_10_0_0_1", "is_dir": True}],
        f"{root}/c1_10_0_0_1": [{"path": f"{root}/c1_10_0_0_1/7", "is_dir": True, "modification_time": 300}],
        f"{root}/c1_10_0_0_1/7": [
            {"path": f"{root}/c1_10_0_0_1/7/eventlog", "file_size": 4, "modification_time": 300},
            {"path": f"{root}/c1_10_0_0_1/7/eventlog-2026-11-23--15-00.gz", "file_size": 3, "modification_time": 150},
        ],
    }
    contents = {"eventlog": b"live", "eventlog-2026-11-23--15-00.gz": b"old"}

    def databricks(request):
        path = request.url.path
        if path.endswith("/jobs/runs/get"):
            return httpx.Response(200, json={"run_id": 9, "state": {"life_cycle_state": "TERMINATED"}, "tasks": [task("main", "c1")]})
        if path.endswith("/clusters/get"):
            return httpx.Response(200, json={"cluster_id": "c1", "cluster_log_conf": {"dbfs": {"destination": "dbfs:/logs"}}})
        if path.endswith("/clusters/events"):
            return httpx.Response(200, json={"events": []})
        if path.endswith("/dbfs/list"):
            return httpx.Response(200, json={"files": listing.get(request.url.params["path"].removeprefix("dbfs:"), [])})
        if path.endswith("/dbfs/read"):
            name = request.url.params["path"].rsplit("/", 1)[-1]
            data = contents[name] if request.url.params["offset"] == "0" else b""
            return httpx.Response(200, json={"bytes_read": len(data), "data": base64.b64encode(data).decode()})
        return httpx.Response(404, json={"error_code": "ENDPOINT_NOT_FOUND", "message": path})

    workspace = DatabricksWorkspace(host="https://dbc.test", token="t", transport=httpx.MockTransport(databricks))
    looks = iter([None, None])

    collected = collect_run(workspace, 9, tmp_path, timeout_s=60, sleep=lambda _s: next(looks))

    assert [path.name for path in collected.files] == ["eventlog-2026-11-23--15-00.gz", "eventlog"]
    assert [path.read_bytes() for path in collected.files] == [b"old", b"live"]
