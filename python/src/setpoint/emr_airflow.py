"""Airflow integration for EMR: size `EmrCreateJobFlowOperator` clusters with Setpoint's recommendations.

Use it as the operator's `pre_execute` and `post_execute`::

    EmrCreateJobFlowOperator(
        task_id="orders_etl",
        job_flow_overrides={...RunJobFlow request...},
        params={"setpoint_app_id": "orders-etl", "setpoint_auto_apply": True,
                "setpoint_workspace_id": "<the EMR account's id in Setpoint>",
                "setpoint_event_log_dir": "s3://my-bucket/spark-events/"},
        wait_policy=WaitPolicy.WAIT_FOR_STEPS_COMPLETION,
        pre_execute=setpoint.emr_airflow.pre_execute_hook,
        post_execute=setpoint.emr_airflow.post_execute_hook,
    )

With auto-apply on, the latest successful recommendation's `Instances` groups or fleets replace the
request's (its other `Instances` settings, such as subnets, keys and keep-alive, stay), and its managed
scaling limits replace the request's; in apply mode `approve-learning` a learning run waiting for approval is
not launched (`setpoint.launch`). The cluster is tagged with the project (and the recommendation and the
launcher, so Setpoint records the launch as that recommendation applied) so Setpoint can group and attribute its runs, and `spark.eventLog.dir` is set to S3 when asked, so event logs
outlive the cluster. After the launch, the cluster's steps are handed to Setpoint, which collects them
from the EMR account (its own credentials: the Airflow worker uploads nothing) and makes the next
recommendation, which the next launch takes. Every failure is logged as a warning and leaves the request exactly as written:
Setpoint never stops a pipeline from running.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Callable, Mapping

from .client import SetpointClient
from .cluster import PROJECT_TAG, RECOMMENDATION_TAG
from .launch import LAUNCHER_TAG, launcher_name, recommendation_to_launch
from .words import count_of

log = logging.getLogger("setpoint.airflow.emr")

ClientFactory = Callable[[], SetpointClient]
EmrClientFactory = Callable[[Any], Any]
CAPACITY_KEYS = ("InstanceGroups", "InstanceFleets", "MasterInstanceType", "SlaveInstanceType", "InstanceCount")


def _set_tag(tags: list[dict[str, str]], key: str, value: str) -> list[dict[str, str]]:
    return [tag for tag in tags if tag.get("Key") != key] + [{"Key": key, "Value": value}]


def _with_event_log_dir(configurations: list[dict[str, Any]], directory: str) -> list[dict[str, Any]]:
    """Adds `spark.eventLog.dir` to `spark-defaults` unless the request already sets one."""
    updated = copy.deepcopy(configurations)
    for configuration in updated:
        if configuration.get("Classification") == "spark-defaults":
            properties = configuration.setdefault("Properties", {})
            properties.setdefault("spark.eventLog.dir", directory)
            properties.setdefault("spark.history.fs.logDirectory", directory)
            return updated
    updated.append(
        {
            "Classification": "spark-defaults",
            "Properties": {"spark.eventLog.dir": directory, "spark.history.fs.logDirectory": directory},
        }
    )
    return updated


def apply_emr_recommendation(request: Mapping[str, Any], configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The RunJobFlow request with the recommendation's instance capacity and scaling limits merged in."""
    updated = copy.deepcopy(dict(request))
    recommended = configuration.get("Instances")
    if not isinstance(recommended, Mapping) or not (
        recommended.get("InstanceGroups") or recommended.get("InstanceFleets")
    ):
        raise ValueError("the recommendation has no EMR Instances block")
    instances = {key: value for key, value in dict(updated.get("Instances") or {}).items() if key not in CAPACITY_KEYS}
    instances.update(copy.deepcopy(dict(recommended)))
    updated["Instances"] = instances
    if configuration.get("ManagedScalingPolicy"):
        updated["ManagedScalingPolicy"] = copy.deepcopy(configuration["ManagedScalingPolicy"])
    return updated


def prepare_job_flow(
    request: Mapping[str, Any], context: Mapping[str, Any], client: SetpointClient
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The RunJobFlow request Setpoint would launch, and the project it belongs to."""
    params = context.get("params") or {}
    app_id = params.get("setpoint_app_id")
    if not app_id:
        raise ValueError("params.setpoint_app_id is not set")
    project = client.get_or_create_project(str(app_id), name=str(app_id), workspace_id=params.get("setpoint_workspace_id"))
    updated = copy.deepcopy(dict(request))
    recommendation = recommendation_to_launch(client, project) if params.get("setpoint_auto_apply", False) else None
    if recommendation:
        updated = apply_emr_recommendation(updated, recommendation["configuration"])
    tags = _set_tag(list(updated.get("Tags") or []), PROJECT_TAG, str(project["id"]))
    if recommendation:
        # Setpoint records the launch as this recommendation applied, by this launcher
        tags = _set_tag(tags, RECOMMENDATION_TAG, str(recommendation["id"]))
        tags = _set_tag(tags, LAUNCHER_TAG, launcher_name(context))
    updated["Tags"] = tags
    if params.get("setpoint_event_log_dir"):
        updated["Configurations"] = _with_event_log_dir(list(updated.get("Configurations") or []), str(params["setpoint_event_log_dir"]))
    return updated, project


def pre_execute_hook(context: Mapping[str, Any], client_factory: ClientFactory = SetpointClient) -> None:
    task = context["task"]
    original = task.job_flow_overrides
    try:
        with client_factory() as client:
            updated, project = prepare_job_flow(original or {}, context, client)
        task.job_flow_overrides = updated
        log.info("setpoint: sized %s for project %s", getattr(task, "task_id", "task"), project["id"])
    except Exception as error:  # noqa: BLE001 - fail open: the cluster must launch as written
        task.job_flow_overrides = original
        log.warning("setpoint: leaving the EMR cluster unchanged: %s", error)


def operator_emr_client(task: Any) -> Any:
    """The boto3 EMR client of the operator's own AWS connection (`aws_conn_id`, region, endpoint)."""
    return task.hook.conn


def _step_ids(emr: Any, cluster_id: str) -> list[str]:
    """Every step of the cluster, following ListSteps' pages."""
    steps: list[str] = []
    request: dict[str, Any] = {"ClusterId": cluster_id}
    while True:
        page = emr.list_steps(**request)
        steps.extend(step["Id"] for step in page.get("Steps") or [])
        if not page.get("Marker"):
            return steps
        request["Marker"] = page["Marker"]


def record_steps(
    context: Mapping[str, Any],
    job_flow_id: Any = None,
    client_factory: ClientFactory = SetpointClient,
    emr_client_factory: EmrClientFactory = operator_emr_client,
) -> list[dict[str, Any]]:
    """Hands the launched cluster's steps to Setpoint, which collects them from the project's EMR account.

    The cluster is the operator's result (its job flow id). A step still running is collected once it has
    finished (Setpoint retries); with `wait_policy=WaitPolicy.WAIT_FOR_STEPS_COMPLETION` the steps have
    finished when this runs. Every failure is logged as a warning: recording never fails the DAG.
    """
    params = context.get("params") or {}
    try:
        task = context["task"]
        cluster_id = job_flow_id or getattr(task, "_job_flow_id", None)
        if not cluster_id:
            raise ValueError("the operator returned no job flow id")
        app_id = params.get("setpoint_app_id")
        if not app_id:
            raise ValueError("params.setpoint_app_id is not set")
        steps = _step_ids(emr_client_factory(task), str(cluster_id))
        if not steps:
            raise ValueError(f"cluster {cluster_id} has no steps to collect")
        account_id = params.get("setpoint_workspace_id")
        with client_factory() as client:
            project = client.find_project_by_app_id(str(app_id))
            if project is None:
                raise ValueError(f"Setpoint has no project with app id {app_id}")
            queued = [
                client.collect_emr_step(project["id"], str(cluster_id), step_id, account_id=account_id)
                for step_id in steps
            ]
        log.info(
            "setpoint: queued collection of %s of cluster %s for project %s",
            count_of(len(queued), "step"),
            cluster_id,
            project["id"],
        )
        return queued
    except Exception as error:  # noqa: BLE001 - recording must not fail the DAG
        log.warning("setpoint: could not record the cluster's steps: %s", error)
        return []


def post_execute_hook(context: Mapping[str, Any], result: Any = None) -> None:
    """`post_execute=` form of `record_steps` (the operator's result is the job flow id)."""
    record_steps(context, result)
