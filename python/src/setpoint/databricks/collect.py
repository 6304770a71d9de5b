"""Collecting a finished Databricks run from inside the workspace: cluster report and event log files.

The event log sits at `<destination>/<cluster_id>/eventlog/<cluster_id>_<driver-ip>/<spark_context_id>/`.
The driver folder's IP rendering is undocumented, so it is found by listing, never built. Databricks
delivers logs every five minutes and everything up to termination afterwards: the log is complete when
the live `eventlog` file was written at or after the tasks ended, no part is empty, and the total size
did not change between two looks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..errors import SetpointError, SetpointTimeoutError
from .workspace import DatabricksWorkspace, LogFile

TERMINAL_LIFE_CYCLE_STATES = frozenset({"TERMINATED", "SKIPPED", "INTERNAL_ERROR"})


@dataclass
class CollectedRun:
    run_id: str
    cluster_id: str
    status: str
    cluster_report: dict[str, Any]
    files: list[Path]


def log_destination(cluster: Mapping[str, Any]) -> str | None:
    """Where the cluster delivers its logs, when it is a place this module can read (DBFS or a Volume)."""
    conf = cluster.get("cluster_log_conf") or {}
    for kind in ("dbfs", "volumes"):
        destination = (conf.get(kind) or {}).get("destination")
        if destination:
            return str(destination).rstrip("/")
    return None


def tasks_to_collect(run: Mapping[str, Any], *, task_key: str | None = None, exclude_tasks: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The tasks that ran on the cluster of interest: `task_key`'s, or the first task that had a cluster."""
    excluded = set(exclude_tasks)
    candidates = [
        task
        for task in run.get("tasks") or []
        if task.get("task_key") not in excluded and (task.get("cluster_instance") or {}).get("cluster_id")
    ]
    if task_key is not None:
        candidates = [task for task in candidates if task.get("task_key") == task_key] + [
            task for task in candidates if task.get("task_key") != task_key
        ]
    if not candidates:
        raise SetpointError(f"run {run.get('run_id')} has no task that ran on a cluster", code="NO_CLUSTER")
    cluster_id = candidates[0]["cluster_instance"]["cluster_id"]
    return [task for task in candidates if task["cluster_instance"]["cluster_id"] == cluster_id]


def status_of(tasks: list[dict[str, Any]]) -> str:
    states = [(task.get("state") or {}).get("result_state") or "FAILED" for task in tasks]
    return next((state for state in states if state != "SUCCESS"), "SUCCESS")


def event_log_dir(workspace: DatabricksWorkspace, destination: str, cluster_id: str, spark_context_id: str | None) -> str | None:
    root = f"{destination}/{cluster_id}/eventlog"
    contexts = [
        entry
        for driver_dir in workspace.list_dir(root)
        if driver_dir.is_dir
        for entry in workspace.list_dir(driver_dir.path)
        if entry.is_dir
    ]
    if spark_context_id:
        contexts = [entry for entry in contexts if entry.name == str(spark_context_id)]
    if not contexts:
        return None
    return max(contexts, key=lambda entry: entry.modified_at).path


def incomplete_reason(files: list[LogFile], tasks_end_ms: int, previous_total: int | None) -> str | None:
    parts = event_log_parts(files)
    live = next((part for part in parts if part.name == "eventlog"), None)
    if live is None:
        return "the live eventlog file has not been delivered"
    if live.modified_at < tasks_end_ms:
        return "the eventlog file was last written before the tasks ended"
    empty = next((part for part in parts if part.size == 0), None)
    if empty is not None:
        return f"{empty.name} is still empty"
    if previous_total != sum(part.size for part in parts):
        return "the log size is still changing"
    return None


def event_log_parts(files: list[LogFile]) -> list[LogFile]:
    """Rolled parts (`eventlog-…`) first, by name, then the live `eventlog`."""
    parts = [entry for entry in files if not entry.is_dir and entry.name.startswith("eventlog")]
    return sorted(parts, key=lambda entry: (entry.name == "eventlog", entry.name))


def collect_run(
    workspace: DatabricksWorkspace,
    run_id: int | str,
    target_dir: Path,
    *,
    task_key: str | None = None,
    exclude_tasks: Iterable[str] = (),
    plan_type: str = "Premium",
    compute_type: str = "Jobs Compute",
    timeout_s: float = 900.0,
    poll_s: float = 10.0,
    sleep: Callable[[float], None] = time.sleep,
) -> CollectedRun:
    """Waits until the run's tasks have finished and their event log is delivered, then downloads it.

    `exclude_tasks` names tasks still running that must not be waited for, such as the task calling this.
    """
    deadline = time.monotonic() + timeout_s
    previous_total: int | None = None
    waiting_for = "the run to start"
    while True:
        run = workspace.get_run(run_id)
        tasks = _finished_tasks(run, task_key, exclude_tasks)
        if tasks is None:
            waiting_for = f"run {run_id} to finish"
        else:
            cluster_id = tasks[0]["cluster_instance"]["cluster_id"]
            cluster = workspace.get_cluster(cluster_id)
            destination = log_destination(cluster.get("spec") or cluster)
            if destination is None:
                raise SetpointError(
                    f"cluster {cluster_id} delivers no logs to DBFS or a Volume: set cluster_log_conf on the job cluster",
                    code="NO_LOG_DELIVERY",
                )
            context_id = next((t["cluster_instance"].get("spark_context_id") for t in tasks if t["cluster_instance"].get("spark_context_id")), None)
            directory = event_log_dir(workspace, destination, cluster_id, context_id)
            if directory is None:
                waiting_for = f"the event log under {destination}/{cluster_id}/eventlog"
            else:
                files = workspace.list_dir(directory)
                ended = max(int(task.get("end_time") or 0) for task in tasks)
                reason = incomplete_reason(files, ended, previous_total)
                previous_total = sum(part.size for part in event_log_parts(files))
                if reason is None:
                    return _download(workspace, run, tasks, cluster, files, target_dir, plan_type, compute_type)
                waiting_for = f"the event log in {directory} ({reason})"
        if time.monotonic() >= deadline:
            raise SetpointTimeoutError(f"gave up after {timeout_s:.0f}s waiting for {waiting_for}", code="COLLECT_TIMEOUT")
        sleep(poll_s)


def _finished_tasks(run: Mapping[str, Any], task_key: str | None, exclude_tasks: Iterable[str]) -> list[dict[str, Any]] | None:
    try:
        tasks = tasks_to_collect(run, task_key=task_key, exclude_tasks=exclude_tasks)
    except SetpointError:
        if (run.get("state") or {}).get("life_cycle_state") in TERMINAL_LIFE_CYCLE_STATES:
            raise
        return None
    done = all((task.get("state") or {}).get("life_cycle_state") in TERMINAL_LIFE_CYCLE_STATES for task in tasks)
    return tasks if done else None


def _download(
    workspace: DatabricksWorkspace,
    run: Mapping[str, Any],
    tasks: list[dict[str, Any]],
    cluster: dict[str, Any],
    files: list[LogFile],
    target_dir: Path,
    plan_type: str,
    compute_type: str,
) -> CollectedRun:
    cluster_id = tasks[0]["cluster_instance"]["cluster_id"]
    target_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    # Databricks' own names (`eventlog-<date>.gz` parts, then the live `eventlog`) are what tells Setpoint
    # they are one rolled log; the upload keeps their order.
    for part in event_log_parts(files):
        path = target_dir / part.name
        path.write_bytes(workspace.read_file(part.path, part.size))
        paths.append(path)
    events = workspace.cluster_events(cluster_id)
    report = {
        "plan_type": plan_type,
        "compute_type": compute_type,
        "cluster": cluster,
        "cluster_events": {"events": events, "total_count": len(events)},
        "tasks": tasks,
    }
    return CollectedRun(str(run.get("run_id")), cluster_id, status_of(tasks), report, paths)
