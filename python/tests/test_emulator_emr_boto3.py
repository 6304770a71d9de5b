"""boto3's EMR client against the emulator's EMR face (AWS JSON 1.1, SigV4-signed requests)."""

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.exceptions import ClientError  # noqa: E402

MINUTE_MS = 60_000


@pytest.fixture(scope="module")
def emr(databricks_emulator):
    """An EMR client on the emulator, with its clock frozen for the module (moved by `advance`)."""
    previous = databricks_emulator.admin("GET", "/emulator/admin/status")
    databricks_emulator.admin("POST", "/emulator/admin/clock", {"speed": 0})
    client = boto3.client(
        "emr",
        endpoint_url=databricks_emulator.url,
        region_name="us-east-1",
        aws_access_key_id="AKIAEMULATOR",
        aws_secret_access_key="emulator-secret",
    )
    try:
        yield client
    finally:
        databricks_emulator.admin("POST", "/emulator/admin/clock", {"speed": previous["clock_speed"]})


@pytest.fixture(scope="module")
def advance(databricks_emulator):
    def move(ms):
        databricks_emulator.admin("POST", "/emulator/admin/clock", {"advance_ms": ms})

    return move


def _groups_cluster(name, keep_alive):
    return dict(
        Name=name,
        ReleaseLabel="emr-6.15.0",
        Instances={
            "KeepJobFlowAliveWhenNoSteps": keep_alive,
            "InstanceGroups": [
                {"Name": "Primary", "InstanceRole": "MASTER", "InstanceType": "m5.xlarge", "InstanceCount": 1},
                {"Name": "Core", "InstanceRole": "CORE", "InstanceType": "r5.2xlarge", "InstanceCount": 2},
                {"Name": "Task", "InstanceRole": "TASK", "Market": "SPOT", "InstanceType": "c5.2xlarge", "InstanceCount": 2},
            ],
        },
        Steps=[
            {
                "Name": "daily-aggregation",
                "ActionOnFailure": "CONTINUE",
                "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "s3://jobs/daily-aggregation.py"]},
            }
        ],
        Tags=[{"Key": "setpoint:project-id", "Value": "daily-agg"}],
        JobFlowRole="EMR_EC2_DefaultRole",
        ServiceRole="EMR_DefaultRole",
    )


def test_transient_cluster_runs_its_step_and_reports_a_timeline(emr, advance):
    cluster_id = emr.run_job_flow(**_groups_cluster("boto3-transient", keep_alive=False))["JobFlowId"]
    assert emr.describe_cluster(ClusterId=cluster_id)["Cluster"]["Status"]["State"] == "STARTING"
    advance(8 * 60 * MINUTE_MS)
    cluster = emr.describe_cluster(ClusterId=cluster_id)["Cluster"]
    assert cluster["Status"]["State"] == "TERMINATED"
    assert cluster["Status"]["StateChangeReason"]["Code"] == "ALL_STEPS_COMPLETED"
    assert cluster["Tags"] == [{"Key": "setpoint:project-id", "Value": "daily-agg"}]
    timeline = cluster["Status"]["Timeline"]
    assert timeline["CreationDateTime"] < timeline["ReadyDateTime"] < timeline["EndDateTime"]

    steps = emr.list_steps(ClusterId=cluster_id)["Steps"]
    assert [(step["Name"], step["Status"]["State"]) for step in steps] == [("daily-aggregation", "COMPLETED")]
    assert steps[0]["Status"]["Timeline"]["StartDateTime"] == timeline["ReadyDateTime"]

    instances = [i for page in emr.get_paginator("list_instances").paginate(ClusterId=cluster_id) for i in page["Instances"]]
    assert sorted((i["InstanceType"], i["Market"]) for i in instances) == [
        ("c5.2xlarge", "SPOT"),
        ("c5.2xlarge", "SPOT"),
        ("m5.xlarge", "ON_DEMAND"),
        ("r5.2xlarge", "ON_DEMAND"),
        ("r5.2xlarge", "ON_DEMAND"),
    ]
    for instance in instances:
        assert instance["Status"]["State"] == "TERMINATED"
        assert instance["Status"]["Timeline"]["EndDateTime"] == timeline["EndDateTime"]


def test_long_running_cluster_resizes_and_takes_a_managed_scaling_policy(emr, advance):
    cluster_id = emr.run_job_flow(**_groups_cluster("boto3-long-running", keep_alive=True))["JobFlowId"]
    advance(30 * MINUTE_MS)
    assert emr.describe_cluster(ClusterId=cluster_id)["Cluster"]["Status"]["State"] in ("RUNNING", "WAITING")
    groups = emr.list_instance_groups(ClusterId=cluster_id)["InstanceGroups"]
    task = next(group for group in groups if group["InstanceGroupType"] == "TASK")
    emr.modify_instance_groups(ClusterId=cluster_id, InstanceGroups=[{"InstanceGroupId": task["Id"], "InstanceCount": 0}])
    after = next(g for g in emr.list_instance_groups(ClusterId=cluster_id)["InstanceGroups"] if g["Id"] == task["Id"])
    assert (after["RequestedInstanceCount"], after["RunningInstanceCount"]) == (0, 0)
    running = emr.list_instances(ClusterId=cluster_id, InstanceStates=["RUNNING"])["Instances"]
    assert len(running) == 3

    emr.put_managed_scaling_policy(
        ClusterId=cluster_id,
        ManagedScalingPolicy={"ComputeLimits": {"UnitType": "Instances", "MinimumCapacityUnits": 2, "MaximumCapacityUnits": 6}},
    )
    limits = emr.get_managed_scaling_policy(ClusterId=cluster_id)["ManagedScalingPolicy"]["ComputeLimits"]
    assert (limits["MinimumCapacityUnits"], limits["MaximumCapacityUnits"]) == (2, 6)

    emr.terminate_job_flows(JobFlowIds=[cluster_id])
    advance(2 * MINUTE_MS)
    assert emr.describe_cluster(ClusterId=cluster_id)["Cluster"]["Status"]["State"] == "TERMINATED"


def test_instance_fleets_and_modify_instance_fleet(emr, advance):
    cluster_id = emr.run_job_flow(
        Name="boto3-fleets",
        ReleaseLabel="emr-7.2.0",
        Instances={
            "KeepJobFlowAliveWhenNoSteps": True,
            "InstanceFleets": [
                {"InstanceFleetType": "MASTER", "TargetOnDemandCapacity": 1, "InstanceTypeConfigs": [{"InstanceType": "m5.xlarge"}]},
                {
                    "InstanceFleetType": "CORE",
                    "TargetOnDemandCapacity": 2,
                    "TargetSpotCapacity": 2,
                    "InstanceTypeConfigs": [{"InstanceType": "m5.2xlarge", "WeightedCapacity": 1}],
                },
            ],
        },
    )["JobFlowId"]
    advance(10 * MINUTE_MS)
    fleets = emr.list_instance_fleets(ClusterId=cluster_id)["InstanceFleets"]
    core = next(fleet for fleet in fleets if fleet["InstanceFleetType"] == "CORE")
    assert (core["ProvisionedOnDemandCapacity"], core["ProvisionedSpotCapacity"]) == (2, 2)
    emr.modify_instance_fleet(ClusterId=cluster_id, InstanceFleet={"InstanceFleetId": core["Id"], "TargetSpotCapacity": 0})
    core = next(f for f in emr.list_instance_fleets(ClusterId=cluster_id)["InstanceFleets"] if f["Id"] == core["Id"])
    assert (core["TargetSpotCapacity"], core["ProvisionedSpotCapacity"]) == (0, 0)
    emr.terminate_job_flows(JobFlowIds=[cluster_id])


def test_lists_clusters_and_reports_errors_as_aws_does(emr):
    listed = [c["Id"] for page in emr.get_paginator("list_clusters").paginate() for c in page["Clusters"]]
    assert len(listed) >= 3
    with pytest.raises(ClientError) as raised:
        emr.describe_cluster(ClusterId="j-DOESNOTEXIST0")
    assert raised.value.response["Error"]["Code"] == "InvalidRequestException"
    assert "is not valid" in raised.value.response["Error"]["Message"]
