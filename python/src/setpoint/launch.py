"""Which recommendation a launch takes: the Airflow hooks' shared rule (EMR RunJobFlow, Databricks runs/submit).

A launcher that takes Setpoint's recommendations writes the cluster itself, so it keeps the project's apply mode
the way Setpoint does where it writes: in `approve-learning`, a learning run waits for a person's approval
(the project's `awaiting_approval`), and a launch made meanwhile does not take it. It takes the recommendation
the previous launches took instead (the newest one recorded as applied), or launches as written when there is
none.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from .client import SetpointClient
from .models import Project, Recommendation

log = logging.getLogger("setpoint.launch")

LAUNCHER_TAG = "setpoint:launched-by"


def _usable(recommendation: Mapping[str, Any] | None) -> bool:
    return bool(recommendation and recommendation.get("state") == "SUCCESS" and recommendation.get("configuration"))


def is_learning_run(recommendation: Mapping[str, Any]) -> bool:
    """As the recommendation's decision says; where it does not, its phase (a phase nobody knows counts as learning)."""
    learning = (recommendation.get("decision") or {}).get("learning")
    if learning is not None:
        return bool(learning.get("active"))
    return recommendation.get("phase") in (None, "LEARNING", "REBASING")


def waits_for_approval(project: Mapping[str, Any], recommendation: Mapping[str, Any]) -> bool:
    """In apply mode `approve-learning`, a learning run that changes the cluster waits for a person."""
    if (project.get("settings") or {}).get("applyMode") != "approve-learning":
        return False
    if ((recommendation.get("decision") or {}).get("action")) == "keep":
        return False
    return is_learning_run(recommendation)


def _approved(client: SetpointClient, project_id: str, recommendation_id: str) -> bool:
    approved = client.list_approvals(project_id=project_id, state="approved", limit=500)
    return any(approval["recommendation_id"] == recommendation_id for approval in approved)


def recommendation_to_launch(client: SetpointClient, project: Project) -> Recommendation | None:
    """The recommendation the next launch takes: the latest one, unless it waits for approval; None: as written."""
    latest = client.get_latest_recommendation(project["id"])
    if latest is None or not _usable(latest):
        return None
    if not waits_for_approval(project, latest):
        return latest
    waiting = project.get("awaiting_approval")
    if not (waiting and waiting.get("recommendation_id") == latest["id"]) and _approved(client, project["id"], latest["id"]):
        return latest
    earlier = next(
        (
            recommendation
            for recommendation in client.list_recommendations(project["id"], limit=50, state="SUCCESS")
            if recommendation["id"] != latest["id"] and recommendation.get("applied") and _usable(recommendation)
        ),
        None,
    )
    log.info(
        "setpoint: recommendation %s is a learning run that waits for approval (apply mode approve-learning); "
        "launching with %s",
        latest["id"],
        f"recommendation {earlier['id']}, the one launched before" if earlier else "the request as written",
    )
    return earlier


def launcher_name(context: Mapping[str, Any]) -> str:
    """Who launches, as the `setpoint:launched-by` tag names it: `airflow:<dag id>.<task id>`."""
    dag = context.get("dag")
    task = context.get("task")
    dag_id = getattr(dag, "dag_id", None) or getattr(task, "dag_id", None) or "dag"
    task_id = getattr(task, "task_id", None) or "task"
    return f"airflow:{dag_id}.{task_id}"
