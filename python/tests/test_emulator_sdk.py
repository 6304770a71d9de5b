"""The official Databricks SDK for Python against Setpoint's workspace emulator."""

import base64
import gzip
import re
import time
from datetime import timedelta

import pytest

sdk = pytest.importorskip("databricks.sdk")
from databricks.sdk.service import compute, jobs, settings  # noqa: E402

@pytest.fixture(scope="module")
def workspace(databricks_emulator):
    return sdk.WorkspaceClient(host=databricks_emulator.url, token=databricks_emulator.token, auth_type="pat")


@pytest.fixture(scope="module")
def finished_run(workspace):
    """Runs the shipped join-heavy ETL job to completion through run-now and runs/get polling."""
    job = next(job for job in workspace.jobs.list(name="Join-heavy ETL"))
    waiter = workspace.jobs.run_now(job_id=job.job_id)
    run = waiter.result(timeout=timedelta(minutes=3))
    return job, run


def test_lists_jobs_across_pages(workspace):
    listed = list(workspace.jobs.list(limit=3))
    ids = [job.job_id for job in listed]
    assert len(ids) >= 10
    assert len(set(ids)) == len(ids)
    names = {job.settings.name for job in listed}
    assert "Two-cluster pipeline" in names


def test_gets_and_updates_a_job(workspace):
    job = next(job for job in workspace.jobs.list(name="Daily aggregation"))
    before = workspace.jobs.get(job_id=job.job_id)
    assert before.settings.tasks[0].task_key == "main"
    workspace.jobs.update(job_id=job.job_id, new_settings=jobs.JobSettings(timeout_seconds=5400))
    after = workspace.jobs.get(job_id=job.job_id)
    assert after.settings.timeout_seconds == 5400
    assert after.settings.tasks[0].new_cluster.node_type_id == before.settings.tasks[0].new_cluster.node_type_id


def test_run_now_polls_to_completion(finished_run):
    _, run = finished_run
    assert run.state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    assert run.end_time > run.start_time
    instance = run.tasks[0].cluster_instance
    assert instance.cluster_id
    assert int(instance.spark_context_id) > 2**53


def test_pages_through_cluster_events(workspace, finished_run):
    _, run = finished_run
    cluster_id = run.tasks[0].cluster_instance.cluster_id
    paged = list(workspace.clusters.events(cluster_id=cluster_id, limit=1, order=sdk.service.compute.GetEventsOrder.ASC))
    types = [event.type.value for event in paged if event.type is not None]
    assert types[0] == "CREATING"
    assert "RUNNING" in types
    assert types[-1] == "TERMINATING"
    assert len(paged) >= 3


def read_dbfs_file(workspace, path, size, chunk):
    """Reads a DBFS file the way a log collector does: base64 windows until file_size bytes arrived."""
    chunks = []
    offset = 0
    while offset < size:
        response = workspace.dbfs.read(path, offset=offset, length=chunk)
        assert 0 < response.bytes_read <= chunk
        chunks.append(base64.b64decode(response.data))
        offset += response.bytes_read
    return chunks


def test_reads_a_delivered_event_log_through_dbfs_in_chunks(workspace, finished_run, databricks_emulator):
    _, run = finished_run
    instance = run.tasks[0].cluster_instance
    # Log delivery follows termination by a few simulated minutes; move the clock past it.
    databricks_emulator.admin("POST", "/emulator/admin/clock", {"advance_ms": 3_600_000})
    root = f"dbfs:/cluster-logs/{instance.cluster_id}/eventlog"
    driver_folder = next(iter(workspace.dbfs.list(root))).path
    folder = f"{driver_folder}/{instance.spark_context_id}"
    files = {item.path.rsplit("/", 1)[-1]: item for item in workspace.dbfs.list(folder)}
    assert "eventlog" in files
    # Rolled hourly parts come first (by name), the live `eventlog` last.
    order = sorted(name for name in files if name.startswith("eventlog-")) + ["eventlog"]
    chunk_size = 256 * 1024
    texts = []
    chunk_count = 0
    for name in order:
        chunks = read_dbfs_file(workspace, files[name].path, files[name].file_size, chunk_size)
        chunk_count += len(chunks)
        data = b"".join(chunks)
        assert len(data) == files[name].file_size
        texts.append(gzip.decompress(data).decode("utf-8") if name.endswith(".gz") else data.decode("utf-8"))
    assert chunk_count >= 2
    for rollover, text in enumerate(texts):
        header = text.split("\n", 1)[0]
        assert header.startswith('{"Event":"DBCEventLoggingListenerMetadata"')
        assert f'"Rollover Number":{rollover},' in header
        assert f'"SparkContext Id":{instance.spark_context_id}' in header
    assert '"Event":"SparkListenerTaskEnd"' in "".join(texts)


def test_creates_and_lists_a_notification_destination(workspace):
    created = workspace.notification_destinations.create(
        display_name="setpoint-webhook",
        config=settings.Config(
            generic_webhook=settings.GenericWebhookConfig(url="https://example.com/hook", username="setpoint", password="s3cret")
        ),
    )
    assert created.destination_type == settings.DestinationType.WEBHOOK
    assert created.config.generic_webhook.password_set is True
    assert created.config.generic_webhook.password is None
    listed = list(workspace.notification_destinations.list(page_size=1))
    assert created.id in [item.id for item in listed]


def test_retries_after_a_429_with_retry_after(workspace, databricks_emulator):
    databricks_emulator.admin(
        "POST",
        "/emulator/admin/faults",
        {"kind": "http", "match": "GET /api/2.*/jobs/get*", "count": 1, "status": 429, "retryAfterSeconds": 1},
    )
    job = next(iter(workspace.jobs.list(limit=1)))
    assert workspace.jobs.get(job_id=job.job_id).job_id == job.job_id
    faults = databricks_emulator.admin("GET", "/emulator/admin/faults")["faults"]
    assert any(rule["applied"] == 1 and rule["status"] == 429 for rule in faults)


# What a typical automation script asks a workspace before it creates anything (issue: the emulator answered
# these unlike Databricks): who am I, which runtime, which node type, what is in the workspace.


def test_current_user_and_workspace_id(workspace):
    me = workspace.current_user.me()
    assert me.user_name == "setpoint-emulator@example.com"
    assert me.active is True
    assert me.emails[0].value == me.user_name
    assert workspace.get_workspace_id() == 1234567890123456
    # the user who runs the jobs is the one the token belongs to
    job = next(iter(workspace.jobs.list(limit=1)))
    assert workspace.jobs.get(job_id=job.job_id).creator_user_name == me.user_name


def test_a_wrong_token_is_refused_as_databricks_refuses_it(databricks_emulator):
    # Databricks answers an unknown personal access token with 403 {"error_code": 403, "message": "Invalid
    # access token."}; the SDK maps it by status to PermissionDenied (a missing credential is a 401)
    stranger = sdk.WorkspaceClient(host=databricks_emulator.url, token="dapi0000000000000000", auth_type="pat")
    with pytest.raises(sdk.errors.PermissionDenied) as refused:
        stranger.current_user.me()
    # the SDK appends the configuration it used ("... Config: host=..., auth_type=pat")
    assert str(refused.value).startswith("Invalid access token.")
    with pytest.raises(sdk.errors.PermissionDenied):
        list(stranger.jobs.list(limit=1))


def test_selects_spark_versions_by_their_databricks_names(workspace):
    clusters = workspace.clusters
    assert clusters.select_spark_version(latest=True, long_term_support=True) == "16.4.x-scala2.12"
    assert clusters.select_spark_version(latest=True, long_term_support=True, photon=True) == "16.4.x-photon-scala2.12"
    assert clusters.select_spark_version(latest=True, long_term_support=True, ml=True) == "16.4.x-cpu-ml-scala2.12"
    assert clusters.select_spark_version(latest=True, long_term_support=True, scala="2.13") == "17.3.x-scala2.13"
    assert clusters.select_spark_version(latest=True, beta=True, scala="2.13") == "18.0.x-scala2.13"
    names = {version.key: version.name for version in clusters.spark_versions().versions}
    assert names["15.4.x-photon-scala2.12"] == "15.4 LTS Photon (includes Apache Spark 3.5.0, Scala 2.12)"


def test_selects_a_node_type_of_the_workspace_cloud(workspace):
    node_type = workspace.clusters.select_node_type(min_cores=8, local_disk=True)
    # an AWS workspace: an EC2 type with instance storage, never an Azure VM size
    assert re.fullmatch(r"[a-z0-9-]+\.\d*x?large", node_type), node_type
    listed = workspace.clusters.list_node_types().node_types
    chosen = next(entry for entry in listed if entry.node_type_id == node_type)
    assert chosen.num_cores >= 8
    assert chosen.node_instance_type.local_disks >= 1
    assert not any(entry.node_type_id.startswith("Standard_") for entry in listed)


def test_lists_the_workspace_root(workspace):
    root = {entry.path: entry.object_type for entry in workspace.workspace.list("/")}
    assert root["/Users"] == sdk.service.workspace.ObjectType.DIRECTORY
    assert root["/Shared"] == sdk.service.workspace.ObjectType.DIRECTORY
    assert "/" not in root
    homes = [entry.path for entry in workspace.workspace.list("/Users")]
    assert homes == ["/Users/setpoint-emulator@example.com"]


def test_a_script_creates_runs_and_deletes_a_job_on_what_it_selected(workspace):
    spark_version = workspace.clusters.select_spark_version(latest=True, long_term_support=True)
    node_type = workspace.clusters.select_node_type(min_cores=8, local_disk=True)
    created = workspace.jobs.create(
        name="setpoint-sdk-script",
        tasks=[
            jobs.Task(
                task_key="main",
                spark_python_task=jobs.SparkPythonTask(python_file="dbfs:/jobbank/daily-aggregation.py"),
                new_cluster=compute.ClusterSpec(spark_version=spark_version, node_type_id=node_type, num_workers=2),
            )
        ],
    )
    try:
        run = workspace.jobs.run_now(job_id=created.job_id).result(timeout=timedelta(minutes=3))
        assert run.state.result_state == jobs.RunResultState.SUCCESS
        listed = list(workspace.jobs.list_runs(job_id=created.job_id))
        assert [item.run_id for item in listed] == [run.run_id]
        assert any(cluster.cluster_id == run.tasks[0].cluster_instance.cluster_id for cluster in workspace.clusters.list())
        policy = workspace.cluster_policies.create(
            name="setpoint-sdk-policy", definition='{"autoscale.max_workers": {"type": "range", "maxValue": 8}}'
        )
        pool = workspace.instance_pools.create(instance_pool_name="setpoint-sdk-pool", node_type_id=node_type)
        assert policy.policy_id in [item.policy_id for item in workspace.cluster_policies.list()]
        assert pool.instance_pool_id in [item.instance_pool_id for item in workspace.instance_pools.list()]
        workspace.cluster_policies.delete(policy_id=policy.policy_id)
    finally:
        workspace.jobs.delete(job_id=created.job_id)
    assert created.job_id not in [job.job_id for job in workspace.jobs.list(name="setpoint-sdk-script")]


def test_runs_are_never_dated_in_the_future(workspace, finished_run):
    # the standalone emulator's clock runs fast until it reaches real time, never past it, so a dashboard's
    # "last 30 days" holds every run
    _, run = finished_run
    now_ms = time.time() * 1000
    assert run.start_time <= now_ms
    assert run.end_time <= now_ms
    for listed in workspace.jobs.list_runs(limit=25):
        assert listed.start_time <= now_ms


def test_a_script_runs_a_job_on_an_all_purpose_cluster_it_created(workspace):
    # the cluster lifecycle as databricks-sdk drives it: create and wait, edit, restart, terminate, start,
    # permanently delete; a job task with existing_cluster_id runs on it
    spark_version = workspace.clusters.select_spark_version(latest=True, long_term_support=True)
    node_type = workspace.clusters.select_node_type(min_cores=4, local_disk=True)
    cluster = workspace.clusters.create_and_wait(
        cluster_name="setpoint-sdk-shared",
        spark_version=spark_version,
        node_type_id=node_type,
        num_workers=1,
        autotermination_minutes=0,
        timeout=timedelta(minutes=2),
    )
    assert cluster.state == compute.State.RUNNING
    assert cluster.cluster_source == compute.ClusterSource.API
    assert cluster.cluster_id in [item.cluster_id for item in workspace.clusters.list()]
    with pytest.raises(sdk.errors.InvalidParameterValue, match="strictly greater"):
        workspace.clusters.create(
            cluster_name="setpoint-sdk-invalid",
            spark_version=spark_version,
            node_type_id=node_type,
            autoscale=compute.AutoScale(min_workers=2, max_workers=2),
        )
    created = None
    try:
        edited = workspace.clusters.edit_and_wait(
            cluster_id=cluster.cluster_id,
            cluster_name="setpoint-sdk-shared",
            spark_version=spark_version,
            node_type_id=node_type,
            num_workers=2,
            autotermination_minutes=0,
            timeout=timedelta(minutes=2),
        )
        assert edited.num_workers == 2
        created = workspace.jobs.create(
            name="setpoint-sdk-on-a-shared-cluster",
            tasks=[
                jobs.Task(
                    task_key="main",
                    existing_cluster_id=cluster.cluster_id,
                    spark_python_task=jobs.SparkPythonTask(python_file="dbfs:/jobbank/daily-aggregation.py"),
                )
            ],
        )
        run = workspace.jobs.run_now(job_id=created.job_id).result(timeout=timedelta(minutes=3))
        assert run.state.result_state == jobs.RunResultState.SUCCESS
        assert run.tasks[0].existing_cluster_id == cluster.cluster_id
        assert run.tasks[0].cluster_instance.cluster_id == cluster.cluster_id
        assert workspace.clusters.restart_and_wait(cluster_id=cluster.cluster_id).state == compute.State.RUNNING
        terminated = workspace.clusters.delete_and_wait(cluster_id=cluster.cluster_id)
        assert terminated.state == compute.State.TERMINATED
        assert workspace.clusters.start_and_wait(cluster_id=cluster.cluster_id).state == compute.State.RUNNING
        events = [event.type for event in workspace.clusters.events(cluster_id=cluster.cluster_id, order=compute.GetEventsOrder.ASC)]
        assert events[:2] == [compute.EventType.CREATING, compute.EventType.RUNNING]
        assert compute.EventType.EDITED in events and compute.EventType.RESTARTING in events
    finally:
        if created is not None:
            workspace.jobs.delete(job_id=created.job_id)
        workspace.clusters.permanent_delete(cluster_id=cluster.cluster_id)
    assert cluster.cluster_id not in [item.cluster_id for item in workspace.clusters.list()]
