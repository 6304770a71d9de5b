"""Airflow integration: size `DatabricksSubmitRunOperator` clusters with Setpoint's recommendations.

Use it as the operator's `pre_execute`::

    DatabricksSubmitRunOperator(
        task_id="orders_etl",
        json={...runs/submit payload...},
        params={"setpoint_app_id": "orders-etl", "setpoint_auto_apply": True,
                "setpoint_workspace_id": "ws-1", "cluster_log_url": "dbfs:/setpoint/logs"},
        pre_execute=setpoint.airflow.pre_execute_hook,
        post_execute=setpoint.airflow.post_execute_hook,
    )

and `post_execute_hook` as its `post_execute` so Setpoint records the finished run.
Every failure is logged as a warning and leaves the job exactly as written: Setpoint never stops a
pipeline from running.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Callable, Mapping

from .client import SetpointClient
from .databricks.recording import record_run as record_databricks_run
from .databricks.workspace import DatabricksWorkspace
from .launch import recommendation_to_launch
from .cluster import (
    PROJECT_TAG,
    RECOMMENDATION_TAG,
    apply_recommendation,
    cluster_log_conf,
    get_path,
    locate_cluster,
    set_path,
)

log = logging.getLogger("setpoint.airflow")

ClientFactory = Callable[[], SetpointClient]


def _params(context: Mapping[str, Any]) -> Mapping[str, Any]:
    return context.get("params") or {}


def _app_id(context: Mapping[str, Any]) -> str:
    params = _params(context)
    app_id = params.get("setpoint_app_id")
    if not app_id:
        raise ValueError("params.setpoint_app_id is not set")
    return str(app_id)


def prepare_payload(
    payload: Mapping[str, Any], context: Mapping[str, Any], client: SetpointClient
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The runs/submit payload with Setpoint's cluster, log delivery, tags and webhook; and the project."""
    params = _params(context)
    app_id = _app_id(context)
    workspace_id = params.get("setpoint_workspace_id")
    project = client.get_or_create_project(app_id, name=app_id, workspace_id=workspace_id)
    updated = copy.deepcopy(dict(payload))
    path = locate_cluster(updated)
    cluster = copy.deepcopy(get_path(updated, path))
    recommendation = recommendation_to_launch(client, project) if params.get("setpoint_auto_apply", False) else None
    if recommendation:
        cluster = apply_recommendation(cluster, recommendation["configuration"])
    if params.get("cluster_log_url") and "cluster_log_conf" not in cluster:
        cluster["cluster_log_conf"] = cluster_log_conf(str(params["cluster_log_url"]))
    tags = dict(cluster.get("custom_tags") or {})
    tags[PROJECT_TAG] = project["id"]
    if recommendation:
        tags[RECOMMENDATION_TAG] = recommendation["id"]
    cluster["custom_tags"] = tags
    set_path(updated, path, cluster)
    destination = params.get("setpoint_webhook_destination_id")
    if not destination and workspace_id:
        destination = client.get_workspace(str(workspace_id)).get("webhook_destination_id")
    if destination:
        notifications = dict(updated.get("webhook_notifications") or {})
        for event in ("on_start", "on_success", "on_failure"):
            entries = list(notifications.get(event) or [])
            if {"id": destination} not in entries and len(entries) < 3:
                entries.append({"id": destination})
            notifications[event] = entries
        updated["webhook_notifications"] = notifications
    return updated, project


def pre_execute_hook(context: Mapping[str, Any], client_factory: ClientFactory = SetpointClient) -> None:
    task = context["task"]
    original = task.json
    try:
        with client_factory() as client:
            updated, project = prepare_payload(original, context, client)
        task.json = updated
        log.info("setpoint: sized %s for project %s", getattr(task, "task_id", "task"), project["id"])
    except Exception as error:  # noqa: BLE001 - fail open: the job must run as written
        task.json = original
        log.warning("setpoint: leaving the cluster unchanged: %s", error)


def databricks_workspace(task: Any) -> DatabricksWorkspace:
    """The workspace behind the operator's Databricks connection (personal access token auth)."""
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    hook = DatabricksHook(task.databricks_conn_id)
    connection = hook.databricks_conn
    token = connection.extra_dejson.get("token") or connection.password
    port = f":{connection.port}" if connection.port else ""
    return DatabricksWorkspace(host=f"{connection.schema or 'https'}://{hook.host}{port}", token=token)


def record_run(
    context: Mapping[str, Any],
    client_factory: ClientFactory = SetpointClient,
    workspace_factory: Callable[[Any], DatabricksWorkspace] = databricks_workspace,
) -> dict[str, Any] | None:
    """Records the finished Databricks run in Setpoint: its cluster report and event log.

    The Airflow worker reads both from the workspace with the operator's own connection and uploads
    them, so Setpoint needs no access to the workspace. It waits for the event log to be delivered
    (`params.setpoint_record_timeout_s`, default 900 s).
    """
    params = _params(context)
    try:
        task = context["task"]
        run_id = getattr(task, "run_id", None) or context["ti"].xcom_pull(task_ids=task.task_id, key="run_id")
        if run_id is None:
            raise ValueError("the Databricks operator has no run_id (did execute run? set do_xcom_push=True)")
        with workspace_factory(task) as workspace, client_factory() as client:
            recorded = record_databricks_run(
                run_id,
                workspace=workspace,
                client=client,
                app_id=_app_id(context),
                timeout_s=float(params.get("setpoint_record_timeout_s", 900)),
                poll_s=float(params.get("setpoint_record_poll_s", 10)),
            )
        log.info("setpoint: recorded Databricks run %s as %s", run_id, recorded.get("id"))
        return recorded
    except Exception as error:  # noqa: BLE001 - recording must not fail the DAG
        log.warning("setpoint: could not record the run: %s", error)
        return None


def post_execute_hook(context: Mapping[str, Any], result: Any = None) -> None:
    """`post_execute=` form of `record_run`."""
    record_run(context)
