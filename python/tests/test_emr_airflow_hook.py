"""The EMR hook's logic, with stand-ins for Airflow's task and context."""

import copy
from types import SimpleNamespace

import pytest

from setpoint.emr_airflow import apply_emr_recommendation, pre_execute_hook, prepare_job_flow, record_steps
from setpoint.errors import SetpointError


class FakeClient:
    def __init__(self, recommendation=None, fail=False, project=None, earlier=(), approved=()):
        self.recommendation = recommendation
        self.fail = fail
        self.project = project or {}
        self.earlier = list(earlier)
        self.approved = list(approved)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        pass

    def get_or_create_project(self, app_id, **_fields):
        if self.fail:
            raise SetpointError("server down")
        return {"id": "p-7", "app_id": app_id, **self.project}

    def get_latest_recommendation(self, _project_id):
        return self.recommendation

    def list_recommendations(self, _project_id, *, limit=20, state=None):
        return [self.recommendation, *self.earlier][:limit]

    def list_approvals(self, *, project_id=None, state="waiting", limit=100):
        assert (project_id, state) == ("p-7", "approved")
        return [{"recommendation_id": rid, "project_id": "p-7", "state": "approved"} for rid in self.approved]

    def find_project_by_app_id(self, app_id):
        if self.fail:
            raise SetpointError("server down")
        return {"id": "p-7", "app_id": app_id}

    def collect_emr_step(self, project_id, cluster_id, step_id, *, account_id=None):
        self.collected = [*getattr(self, "collected", []), (project_id, cluster_id, step_id, account_id)]
        return {"queued": True, "cluster_id": cluster_id, "step_id": step_id}


class FakeEmr:
    """ListSteps in two pages, as EMR pages a cluster's steps."""

    def __init__(self):
        self.requests = []

    def list_steps(self, **request):
        self.requests.append(request)
        if "Marker" not in request:
            return {"Steps": [{"Id": "s-2", "Status": {"State": "COMPLETED"}}], "Marker": "next"}
        return {"Steps": [{"Id": "s-1", "Status": {"State": "RUNNING"}}]}


REQUEST = {
    "Name": "nightly-orders",
    "ReleaseLabel": "emr-7.2.0",
    "Instances": {
        "KeepJobFlowAliveWhenNoSteps": False,
        "Ec2SubnetId": "subnet-1",
        "InstanceGroups": [
            {"InstanceRole": "MASTER", "InstanceType": "m5.xlarge", "InstanceCount": 1},
            {"InstanceRole": "CORE", "InstanceType": "m5.4xlarge", "InstanceCount": 6},
        ],
    },
    "Tags": [{"Key": "team", "Value": "data"}],
    "Configurations": [{"Classification": "spark-defaults", "Properties": {"spark.sql.shuffle.partitions": "400"}}],
}

RECOMMENDATION = {
    "id": "r-3",
    "state": "SUCCESS",
    "configuration": {
        "Instances": {
            "InstanceGroups": [
                {"Name": "Primary", "InstanceRole": "MASTER", "Market": "ON_DEMAND", "InstanceType": "m5.xlarge", "InstanceCount": 1},
                {"Name": "Core", "InstanceRole": "CORE", "Market": "ON_DEMAND", "InstanceType": "r5.2xlarge", "InstanceCount": 2},
                {"Name": "Task", "InstanceRole": "TASK", "Market": "SPOT", "InstanceType": "r5.2xlarge", "InstanceCount": 4},
            ]
        }
    },
}

CONTEXT = {
    "params": {"setpoint_app_id": "orders-etl", "setpoint_auto_apply": True, "setpoint_event_log_dir": "s3://logs/spark-events/"},
    "dag": SimpleNamespace(dag_id="nightly"),
    "task": SimpleNamespace(task_id="orders"),
}


def test_merges_the_recommended_groups_and_keeps_the_rest_of_the_request():
    updated, project = prepare_job_flow(REQUEST, CONTEXT, FakeClient(RECOMMENDATION))
    assert project["id"] == "p-7"
    assert updated["Instances"]["InstanceGroups"] == RECOMMENDATION["configuration"]["Instances"]["InstanceGroups"]
    assert updated["Instances"]["Ec2SubnetId"] == "subnet-1"
    assert updated["Instances"]["KeepJobFlowAliveWhenNoSteps"] is False
    assert updated["Tags"] == [
        {"Key": "team", "Value": "data"},
        {"Key": "setpoint:project-id", "Value": "p-7"},
        {"Key": "setpoint:recommendation-id", "Value": "r-3"},
        {"Key": "setpoint:launched-by", "Value": "airflow:nightly.orders"},
    ]
    properties = updated["Configurations"][0]["Properties"]
    assert properties["spark.eventLog.dir"] == "s3://logs/spark-events/"
    assert properties["spark.sql.shuffle.partitions"] == "400"
    assert REQUEST["Instances"]["InstanceGroups"][1]["InstanceCount"] == 6  # the original is not modified


LEARNING = {
    **RECOMMENDATION,
    "id": "r-4",
    "phase": "LEARNING",
    "decision": {"action": "change", "learning": {"active": True, "run": 2}},
    "applied": None,
    "configuration": {
        "Instances": {
            "InstanceGroups": [
                {"InstanceRole": "MASTER", "InstanceType": "m5.xlarge", "InstanceCount": 1},
                {"InstanceRole": "CORE", "InstanceType": "c5.xlarge", "InstanceCount": 1},
            ]
        }
    },
}
EARLIER = {**RECOMMENDATION, "applied": {"requested_at": 1, "requested_by": "airflow:nightly.orders"}}
APPROVE_LEARNING = {"settings": {"applyMode": "approve-learning"}}


def groups(updated):
    return [(group["InstanceRole"], group["InstanceType"], group["InstanceCount"]) for group in updated["Instances"]["InstanceGroups"]]


def test_in_approve_learning_a_learning_run_awaiting_approval_is_not_launched(caplog):
    project = {**APPROVE_LEARNING, "awaiting_approval": {"recommendation_id": "r-4", "state": "waiting"}}
    client = FakeClient(LEARNING, project=project, earlier=[EARLIER])
    caplog.set_level("INFO")
    updated, _ = prepare_job_flow(REQUEST, CONTEXT, client)
    # the cluster the previous launches took, not the learning probe
    assert groups(updated) == [("MASTER", "m5.xlarge", 1), ("CORE", "r5.2xlarge", 2), ("TASK", "r5.2xlarge", 4)]
    assert {"Key": "setpoint:recommendation-id", "Value": "r-3"} in updated["Tags"]
    assert "recommendation r-4 is a learning run that waits for approval" in caplog.text
    # with nothing launched before, the request as written
    updated, _ = prepare_job_flow(REQUEST, CONTEXT, FakeClient(LEARNING, project=project))
    assert updated["Instances"] == REQUEST["Instances"]
    assert not any(tag["Key"] == "setpoint:recommendation-id" for tag in updated["Tags"])


def test_in_approve_learning_a_learning_run_launches_once_approved_and_not_before_it_is_asked():
    # approved: awaiting_approval is cleared, and the approval says approved
    approved, _ = prepare_job_flow(REQUEST, CONTEXT, FakeClient(LEARNING, project=APPROVE_LEARNING, approved=["r-4"]))
    assert groups(approved) == [("MASTER", "m5.xlarge", 1), ("CORE", "c5.xlarge", 1)]
    # not waiting yet and not approved (just made, rejected, superseded): not launched
    held, _ = prepare_job_flow(REQUEST, CONTEXT, FakeClient(LEARNING, project=APPROVE_LEARNING, earlier=[EARLIER]))
    assert ("CORE", "c5.xlarge", 1) not in groups(held)
    # an optimizing change, and any recommendation in apply mode auto, launch on their own
    optimizing = {**LEARNING, "decision": {"action": "change", "learning": {"active": False, "run": 9}}}
    assert groups(prepare_job_flow(REQUEST, CONTEXT, FakeClient(optimizing, project=APPROVE_LEARNING))[0])[1] == ("CORE", "c5.xlarge", 1)
    auto = {"settings": {"applyMode": "auto"}}
    assert groups(prepare_job_flow(REQUEST, CONTEXT, FakeClient(LEARNING, project=auto))[0])[1] == ("CORE", "c5.xlarge", 1)


def test_fleets_replace_groups_and_scaling_limits_come_along():
    configuration = {
        "Instances": {"InstanceFleets": [{"InstanceFleetType": "MASTER", "TargetOnDemandCapacity": 1, "InstanceTypeConfigs": [{"InstanceType": "m5.xlarge"}]}]},
        "ManagedScalingPolicy": {"ComputeLimits": {"UnitType": "InstanceFleetUnits", "MinimumCapacityUnits": 2, "MaximumCapacityUnits": 6}},
    }
    updated = apply_emr_recommendation(REQUEST, configuration)
    assert "InstanceGroups" not in updated["Instances"]
    assert updated["Instances"]["InstanceFleets"][0]["InstanceFleetType"] == "MASTER"
    assert updated["ManagedScalingPolicy"]["ComputeLimits"]["MaximumCapacityUnits"] == 6
    with pytest.raises(ValueError, match="no EMR Instances block"):
        apply_emr_recommendation(REQUEST, {"node_type_id": "m5.xlarge"})


def test_without_auto_apply_only_tags_are_added():
    context = {"params": {"setpoint_app_id": "orders-etl"}}
    updated, _ = prepare_job_flow(REQUEST, context, FakeClient(RECOMMENDATION))
    assert updated["Instances"] == REQUEST["Instances"]
    assert {"Key": "setpoint:recommendation-id", "Value": "r-3"} not in updated["Tags"]


@pytest.mark.parametrize(
    "client",
    [FakeClient(fail=True), FakeClient({**RECOMMENDATION, "configuration": {"node_type_id": "m5.xlarge"}})],
)
def test_fails_open_and_leaves_the_request_as_written(client, caplog):
    task = SimpleNamespace(task_id="orders", job_flow_overrides=copy.deepcopy(REQUEST))
    pre_execute_hook({**CONTEXT, "task": task}, client_factory=lambda: client)
    assert task.job_flow_overrides == REQUEST
    assert "leaving the EMR cluster unchanged" in caplog.text


def test_the_hook_sets_the_sized_request_on_the_task():
    task = SimpleNamespace(task_id="orders", job_flow_overrides=copy.deepcopy(REQUEST))
    pre_execute_hook({**CONTEXT, "task": task}, client_factory=lambda: FakeClient(RECOMMENDATION))
    assert task.job_flow_overrides["Instances"]["InstanceGroups"][2]["Market"] == "SPOT"


def test_after_the_launch_every_step_of_the_cluster_is_handed_to_setpoint_with_the_account(caplog):
    caplog.set_level("INFO")
    client, emr = FakeClient(), FakeEmr()
    context = {"params": {**CONTEXT["params"], "setpoint_workspace_id": "emr-acct-1"}, "task": SimpleNamespace(task_id="orders")}
    queued = record_steps(context, "j-ABC", client_factory=lambda: client, emr_client_factory=lambda _task: emr)
    assert [entry["step_id"] for entry in queued] == ["s-2", "s-1"]
    assert client.collected == [("p-7", "j-ABC", "s-2", "emr-acct-1"), ("p-7", "j-ABC", "s-1", "emr-acct-1")]
    assert emr.requests == [{"ClusterId": "j-ABC"}, {"ClusterId": "j-ABC", "Marker": "next"}]
    assert "setpoint: queued collection of 2 steps of cluster j-ABC for project p-7" in caplog.text


@pytest.mark.parametrize(
    ("job_flow_id", "client", "reason"),
    [
        (None, FakeClient(), "the operator returned no job flow id"),
        ("j-ABC", FakeClient(fail=True), "server down"),
    ],
)
def test_recording_fails_open_with_the_reason(job_flow_id, client, reason, caplog):
    context = {**CONTEXT, "task": SimpleNamespace(task_id="orders")}
    queued = record_steps(context, job_flow_id, client_factory=lambda: client, emr_client_factory=lambda _task: FakeEmr())
    assert queued == []
    assert f"setpoint: could not record the cluster's steps: {reason}" in caplog.text
