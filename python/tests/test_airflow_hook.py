"""The hook's logic, with stand-ins for Airflow's task and context (the real-Airflow test is separate)."""

from types import SimpleNamespace

import pytest

from setpoint.airflow import pre_execute_hook, prepare_payload, record_run
from setpoint.cluster import apply_recommendation, deep_merge
from setpoint.errors import SetpointError


class FakeClient:
    def __init__(self, recommendation=None, workspace=None, fail=False):
        self.recommendation = recommendation
        self.workspace = workspace or {}
        self.fail = fail
        self.created = []

    def __enter__(self):
        return self

    def __exit__(self, *_):
        pass

    def get_or_create_project(self, app_id, **fields):
        if self.fail:
            raise SetpointError("server down")
        self.created.append((app_id, fields))
        return {"id": "p-1", "app_id": app_id}

    def get_latest_recommendation(self, _project_id):
        return self.recommendation

    def get_workspace(self, _workspace_id):
        return self.workspace


PAYLOAD = {
    "run_name": "orders",
    "tasks": [
        {
            "task_key": "main",
            "new_cluster": {
                "spark_version": "14.3.x-scala2.12",
                "node_type_id": "m5.2xlarge",
                "autoscale": {"min_workers": 2, "max_workers": 8},
                "init_scripts": [{"workspace": {"destination": "/init.sh"}}],
                "aws_attributes": {"zone_id": "us-east-1a"},
            },
            "spark_python_task": {"python_file": "dbfs:/job.py"},
        }
    ],
}

RECOMMENDATION = {
    "id": "r-9",
    "state": "SUCCESS",
    "configuration": {
        "node_type_id": "r6i.xlarge",
        "num_workers": 5,
        "aws_attributes": {"availability": "SPOT_WITH_FALLBACK", "first_on_demand": 1},
        "init_scripts": [{"workspace": {"destination": "/init.sh"}}],
    },
}


def context(**params):
    return {"task": SimpleNamespace(task_id="orders_etl", json=PAYLOAD), "params": params}


def test_merges_the_recommendation_dropping_the_old_sizing():
    updated, project = prepare_payload(
        PAYLOAD,
        context(setpoint_app_id="orders", setpoint_auto_apply=True, cluster_log_url="dbfs:/logs"),
        FakeClient(RECOMMENDATION, {"webhook_destination_id": "dest-1"}),
    )

    cluster = updated["tasks"][0]["new_cluster"]
    assert project["id"] == "p-1"
    assert cluster["node_type_id"] == "r6i.xlarge"
    assert cluster["num_workers"] == 5
    assert "autoscale" not in cluster
    assert cluster["aws_attributes"] == {"zone_id": "us-east-1a", "availability": "SPOT_WITH_FALLBACK", "first_on_demand": 1}
    assert cluster["init_scripts"] == [{"workspace": {"destination": "/init.sh"}}]
    assert cluster["cluster_log_conf"] == {"dbfs": {"destination": "dbfs:/logs"}}
    assert cluster["custom_tags"] == {"setpoint:project-id": "p-1", "setpoint:recommendation-id": "r-9"}
    assert updated["tasks"][0]["spark_python_task"] == {"python_file": "dbfs:/job.py"}


def test_without_auto_apply_only_wires_collection():
    updated, _ = prepare_payload(PAYLOAD, context(setpoint_app_id="orders", setpoint_webhook_destination_id="dest-1"), FakeClient(RECOMMENDATION))

    cluster = updated["tasks"][0]["new_cluster"]
    assert cluster["node_type_id"] == "m5.2xlarge"
    assert cluster["autoscale"] == {"min_workers": 2, "max_workers": 8}
    assert updated["webhook_notifications"] == {e: [{"id": "dest-1"}] for e in ("on_start", "on_success", "on_failure")}


def test_the_original_payload_object_is_never_mutated():
    before = repr(PAYLOAD)

    prepare_payload(PAYLOAD, context(setpoint_app_id="orders", setpoint_auto_apply=True), FakeClient(RECOMMENDATION))

    assert repr(PAYLOAD) == before


def test_hook_fails_open_and_leaves_the_job_as_written(caplog):
    ctx = context(setpoint_app_id="orders", setpoint_auto_apply=True)

    pre_execute_hook(ctx, client_factory=lambda: FakeClient(fail=True))

    assert ctx["task"].json is PAYLOAD
    assert "leaving the cluster unchanged: server down" in caplog.text


def test_hook_sets_the_updated_payload_on_the_task():
    ctx = context(setpoint_app_id="orders", setpoint_auto_apply=True)

    pre_execute_hook(ctx, client_factory=lambda: FakeClient(RECOMMENDATION))

    assert ctx["task"].json["tasks"][0]["new_cluster"]["num_workers"] == 5


def test_missing_app_id_fails_open(caplog):
    ctx = context()

    pre_execute_hook(ctx, client_factory=lambda: FakeClient(RECOMMENDATION))

    assert ctx["task"].json is PAYLOAD
    assert "setpoint_app_id is not set" in caplog.text


@pytest.mark.parametrize(
    ("base", "changes", "expected"),
    [
        ({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}, {"a": {"b": 3, "c": 2}}),
        ({"l": [1, 2]}, {"l": [2, 3]}, {"l": [1, 2, 3]}),
        ({"x": 1, "y": 2}, {"y": None}, {"x": 1}),
    ],
)
def test_deep_merge(base, changes, expected):
    assert deep_merge(base, changes) == expected


def test_apply_recommendation_with_autoscale_replaces_fixed_size():
    assert apply_recommendation({"num_workers": 3, "x": 1}, {"autoscale": {"min_workers": 1, "max_workers": 4}}) == {
        "x": 1,
        "autoscale": {"min_workers": 1, "max_workers": 4},
    }


def test_record_run_without_a_run_id_warns_and_returns_none(caplog):
    class NoXcom:
        def xcom_pull(self, **_kwargs):
            return None

    ctx = {**context(setpoint_app_id="orders"), "ti": NoXcom()}

    assert record_run(ctx, client_factory=lambda: FakeClient(), workspace_factory=lambda _task: None) is None
    assert "could not record the run: the Databricks operator has no run_id" in caplog.text
