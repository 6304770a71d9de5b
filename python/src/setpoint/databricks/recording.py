"""Record a finished Databricks run in Setpoint from inside the workspace.

For workspaces Setpoint cannot reach: a last task of the job (or any machine that can reach both)
reads the run's cluster and event log from the workspace and uploads them to Setpoint.

As a job task, after the tasks to record::

    python -m setpoint.databricks.record_run --run-id {{job.run_id}} --exclude-task {{task.name}}

The project is `--project`, else the one with `--app-id` (created when missing), else the one named
by the cluster's `setpoint:project-id` tag. Setpoint's URL and key come from `SETPOINT_URL`,
`SETPOINT_API_KEY_ID` and `SETPOINT_API_KEY_SECRET` (see init-script.sh); the workspace from
`DATABRICKS_HOST`/`DATABRICKS_TOKEN`, else from the Databricks runtime's own context.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..client import SetpointClient
from ..cluster import PROJECT_TAG
from ..errors import SetpointError
from .collect import collect_run
from .workspace import DatabricksWorkspace


def record_run(
    run_id: int | str,
    *,
    workspace: DatabricksWorkspace,
    client: SetpointClient,
    project_id: str | None = None,
    app_id: str | None = None,
    task_key: str | None = None,
    exclude_tasks: Iterable[str] = (),
    plan_type: str = "Premium",
    compute_type: str = "Jobs Compute",
    timeout_s: float = 900.0,
    poll_s: float = 10.0,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """Collects the run and submits it; returns Setpoint's run. Recording the same run twice is a no-op."""
    with tempfile.TemporaryDirectory(prefix="setpoint-run-") as scratch:
        collected = collect_run(
            workspace,
            run_id,
            Path(scratch),
            task_key=task_key,
            exclude_tasks=exclude_tasks,
            plan_type=plan_type,
            compute_type=compute_type,
            timeout_s=timeout_s,
            poll_s=poll_s,
            sleep=sleep,
        )
        project = _project_id(client, collected.cluster_report["cluster"], project_id, app_id)
        return client.submit_run(
            project,
            collected.files,
            cluster_report=collected.cluster_report,
            external_run_id=collected.run_id,
            status=collected.status,
        )


def _project_id(client: SetpointClient, cluster: dict[str, Any], project_id: str | None, app_id: str | None) -> str:
    if project_id:
        return project_id
    if app_id:
        return client.get_or_create_project(app_id, name=app_id)["id"]
    tagged = (cluster.get("custom_tags") or {}).get(PROJECT_TAG)
    if tagged:
        return str(tagged)
    raise SetpointError(
        f"no project: pass --project or --app-id, or tag the cluster with {PROJECT_TAG}", code="NO_PROJECT"
    )


def runtime_context() -> dict[str, str]:
    """Host, token and run id from the Databricks runtime when running on a cluster; empty elsewhere."""
    try:
        from pyspark.dbutils import DBUtils  # type: ignore[import-not-found]
        from pyspark.sql import SparkSession  # type: ignore[import-not-found]
    except ImportError:
        return {}
    try:
        context = DBUtils(SparkSession.builder.getOrCreate()).notebook.entry_point.getDbutils().notebook().getContext()
        tags = context.tags()
        found = {"host": context.apiUrl().get(), "token": context.apiToken().get()}
        parent = tags.get("multitaskParentRunId")
        if parent.isDefined():
            found["run_id"] = parent.get()
        return found
    except Exception:  # noqa: BLE001 - best effort: arguments and env vars still work
        return {}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m setpoint.databricks.record_run",
        description="Record a finished Databricks run in Setpoint: its cluster report and event log.",
        epilog=(
            "examples:\n"
            "  python -m setpoint.databricks.record_run --run-id {{job.run_id}} --exclude-task {{task.name}}\n"
            "  python -m setpoint.databricks.record_run --run-id 123 --app-id orders-etl --task-key main"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--run-id", help="the job run to record (default: this task's job run)")
    parser.add_argument("--project", help="Setpoint project id")
    parser.add_argument("--app-id", help="find or create the Setpoint project with this app id")
    parser.add_argument("--task-key", help="record the cluster this task ran on (default: the first task's)")
    parser.add_argument("--exclude-task", action="append", default=[], help="a task not to wait for (repeatable), e.g. this one")
    parser.add_argument("--plan-type", default="Premium", help="the workspace's plan: Standard, Premium or Enterprise")
    parser.add_argument("--compute-type", default="Jobs Compute")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for the event log (default 900)")
    parser.add_argument("--poll", type=float, default=10.0, help="seconds between looks (default 10)")
    parser.add_argument("--host", help="workspace URL (default DATABRICKS_HOST or the runtime's)")
    parser.add_argument("--token", help="workspace token (default DATABRICKS_TOKEN or the runtime's)")
    parser.add_argument("--url", help="Setpoint URL (default SETPOINT_URL)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        context = runtime_context() if not (args.run_id and args.host and args.token) else {}
        run_id = args.run_id or context.get("run_id")
        if not run_id:
            raise SetpointError("no run id: pass --run-id (in a job task: --run-id {{job.run_id}})", code="NO_RUN_ID")
        with DatabricksWorkspace(host=args.host or context.get("host"), token=args.token or context.get("token")) as workspace, SetpointClient(url=args.url) as client:
            recorded = record_run(
                run_id,
                workspace=workspace,
                client=client,
                project_id=args.project,
                app_id=args.app_id,
                task_key=args.task_key,
                exclude_tasks=args.exclude_task,
                plan_type=args.plan_type,
                compute_type=args.compute_type,
                timeout_s=args.timeout,
                poll_s=args.poll,
            )
    except SetpointError as error:
        print(f"setpoint: {error}", file=sys.stderr)
        return 1
    print(json.dumps(recorded))
    return 0


if __name__ == "__main__":
    sys.exit(main())
