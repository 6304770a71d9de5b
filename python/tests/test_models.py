"""The client's answers from a real server have the shapes `setpoint.models` declares (key by key, nested)."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from setpoint import models

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "service"


def _is_typed_dict(hint: object) -> bool:
    return isinstance(hint, type) and hasattr(hint, "__required_keys__")


def mismatches(value: object, hint: object, where: str) -> list[str]:
    """Where `value` does not have the keys its TypedDict declares, looking into nested models and lists."""
    origin = typing.get_origin(hint)
    if origin is typing.Union:
        members = [member for member in typing.get_args(hint) if member is not type(None)]
        if value is None:
            return [] if len(members) < len(typing.get_args(hint)) else [f"{where}: null"]
        return mismatches(value, members[0], where) if len(members) == 1 else []
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        (item,) = typing.get_args(hint)
        return [problem for index, entry in enumerate(value) for problem in mismatches(entry, item, f"{where}[{index}]")]
    if not _is_typed_dict(hint):
        return []
    if not isinstance(value, dict):
        return [f"{where}: not an object"]
    fields = typing.get_type_hints(hint)
    problems = [f"{where}.{key}: missing" for key in sorted(hint.__required_keys__ - value.keys())]
    problems += [f"{where}.{key}: not in the model" for key in sorted(value.keys() - fields.keys())]
    for key in value.keys() & fields.keys():
        problems += mismatches(value[key], fields[key], f"{where}.{key}")
    return problems


def test_the_checker_sees_a_missing_key_an_extra_key_and_a_nested_one():
    token = {"access_token": "t", "token_type": "Bearer"}
    assert mismatches(token, models.Token, "token") == ["token.expires_at: missing"]
    assert mismatches({**token, "expires_at": 1, "scope": "x"}, models.Token, "token") == ["token.scope: not in the model"]
    page = {"items": [{"id": "p"}], "total": 1, "limit": 1, "offset": 0}
    assert "page.items[0].name: missing" in mismatches(page, models.ProjectPage, "page")


@pytest.fixture(scope="module")
def client(setpoint_server):
    with setpoint_server.client() as client:
        yield client


def test_projects_have_the_model_shape(client):
    created = client.create_project("models-check", app_id="models-check")
    assert mismatches(created, models.Project, "created") == []
    assert mismatches(client.get_project(created["id"]), models.Project, "project") == []
    updated = client.update_project(created["id"], description="typed")
    assert mismatches(updated, models.Project, "updated") == []
    page = client.request("GET", "/api/v1/projects", params={"limit": 10})
    assert mismatches(page, models.ProjectPage, "page") == []


def test_runs_and_recommendations_have_the_model_shape(client):
    project = client.get_or_create_project("models-runs", name="models-runs", settings={"slaMinutes": 60})
    submitted = client.submit_run(
        project["id"],
        [FIXTURES / "databricks-aws-eventlog"],
        cluster_report=json.loads((FIXTURES / "cluster-report.json").read_text()),
        external_run_id="models-1",
    )
    assert mismatches(submitted, models.RunSummary, "submitted") == []
    run = client.wait_for_run(project["id"], submitted["id"], timeout_s=120)
    assert run["pipeline_state"] == "DONE", run.get("error")
    assert mismatches(run, models.Run, "run") == []
    assert run["profile_summary"] is not None  # the nested model was checked, not skipped as null
    for index, listed in enumerate(client.list_runs(project["id"])):
        assert mismatches(listed, models.RunSummary, f"runs[{index}]") == []

    requested = client.create_recommendation(project["id"])
    assert mismatches(requested, models.RecommendationRequested, "requested") == []
    recommendation = client.wait_for_recommendation(project["id"], requested["id"], timeout_s=120)
    assert mismatches(recommendation, models.Recommendation, "recommendation") == []
    latest = client.get_latest_recommendation(project["id"])
    assert latest is not None and mismatches(latest, models.Recommendation, "latest") == []


def test_a_workspace_read_through_its_connection_is_what_the_workspace_route_answers(client):
    connection = client.request(
        "POST",
        "/api/v1/connections",
        json={
            "platform": "databricks",
            "name": "models-workspace",
            "settings": {"cloud": "aws", "region": "us-east-1", "host": "https://dbc-models.cloud.databricks.com", "plan_type": "Premium", "credentials": {"auth_type": "pat", "token": "dapi-models"}},
            "check_sign_in": False,
        },
    )
    assert mismatches(client.get_connection(connection["id"]), models.Connection, "connection") == []
    workspace = client.get_workspace(connection["id"])
    assert mismatches(workspace, models.Workspace, "workspace") == []
    # the deprecated route, answered for one more release, shows the same workspace
    assert workspace == client.request("GET", f"/api/v1/workspaces/{connection['id']}")
    assert workspace["has_credentials"] is True and "dapi-models" not in json.dumps(workspace)
