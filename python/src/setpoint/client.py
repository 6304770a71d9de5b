"""Typed client for the Setpoint REST API (`/api/v1`): answers are the typed dictionaries of `setpoint.models`."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, cast

import httpx

from .errors import SetpointError, SetpointTimeoutError
from .models import (
    ApprovalListItemsItem,
    Connection,
    DatabricksRunQueued,
    EmrStepQueued,
    Project,
    Recommendation,
    RecommendationRequested,
    Run,
    RunSummary,
    Workspace,
)
from .retry import RetryPolicy, send_with_retries

TERMINAL_RECOMMENDATION_STATES = frozenset({"SUCCESS", "FAILURE"})
TERMINAL_PIPELINE_STATES = frozenset({"DONE", "FAILED"})


@dataclass
class _Token:
    value: str
    expires_at_ms: int


@dataclass
class SetpointClient:
    """Talks to one Setpoint server with an API key; exchanges it for a bearer token and refreshes it.

    Arguments default to the `SETPOINT_URL`, `SETPOINT_API_KEY_ID` and `SETPOINT_API_KEY_SECRET`
    environment variables.
    """

    url: str | None = None
    api_key_id: str | None = None
    api_key_secret: str | None = None
    timeout_s: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    transport: httpx.BaseTransport | None = None
    sleep: Callable[[float], None] = time.sleep
    _token: _Token | None = field(default=None, init=False, repr=False)
    _http: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.url = (self.url or os.environ.get("SETPOINT_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.api_key_id = self.api_key_id or os.environ.get("SETPOINT_API_KEY_ID")
        self.api_key_secret = self.api_key_secret or os.environ.get("SETPOINT_API_KEY_SECRET")
        if not self.api_key_id or not self.api_key_secret:
            raise SetpointError(
                "no Setpoint API key: pass api_key_id/api_key_secret or set SETPOINT_API_KEY_ID and SETPOINT_API_KEY_SECRET",
                code="NO_CREDENTIALS",
            )
        self._http = httpx.Client(
            base_url=self.url,
            timeout=self.timeout_s,
            transport=self.transport,
            headers={"user-agent": "setpoint-client-python"},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "SetpointClient":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return send_with_retries(
            lambda: self._http.request(method, path, **kwargs),
            self.retry,
            self.sleep,
            lambda error: SetpointError(f"cannot reach Setpoint at {self.url}: {error}", code="CONNECTION_FAILED"),
        )

    def _bearer(self) -> str:
        now_ms = int(time.time() * 1000)
        if self._token is None or self._token.expires_at_ms - now_ms < 30_000:
            response = self._send(
                "POST",
                "/api/v1/auth/token",
                json={"api_key_id": self.api_key_id, "api_key_secret": self.api_key_secret},
            )
            body = _decode(response)
            self._token = _Token(body["access_token"], _epoch_ms(body["expires_at"]))
        return self._token.value

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}) or {})
        headers["authorization"] = f"Bearer {self._bearer()}"
        response = self._send(method, path, headers=headers, **kwargs)
        if response.status_code == 401 and self._token is not None:
            self._token = None
            headers["authorization"] = f"Bearer {self._bearer()}"
            response = self._send(method, path, headers=headers, **kwargs)
        return _decode(response)

    # -- projects --------------------------------------------------------------------------

    def list_projects(self, *, query: str | None = None, app_id: str | None = None, limit: int = 100) -> list[Project]:
        params: dict[str, Any] = {"limit": limit}
        if query:
            params["q"] = query
        if app_id:
            params["app_id"] = app_id
        body = self.request("GET", "/api/v1/projects", params=params)
        return list(body.get("items", body) if isinstance(body, dict) else body)

    def get_project(self, project_id: str) -> Project:
        return self.request("GET", f"/api/v1/projects/{project_id}")

    def create_project(self, name: str, **fields: Any) -> Project:
        return self.request("POST", "/api/v1/projects", json={"name": name, **fields})

    def update_project(self, project_id: str, **fields: Any) -> Project:
        return self.request("PATCH", f"/api/v1/projects/{project_id}", json=fields)

    def find_project_by_app_id(self, app_id: str) -> Project | None:
        found = self.list_projects(app_id=app_id, limit=1)
        return found[0] if found else None

    def get_or_create_project(self, app_id: str, **fields: Any) -> Project:
        return self.find_project_by_app_id(app_id) or self.create_project(fields.pop("name", app_id), app_id=app_id, **fields)

    # -- runs ------------------------------------------------------------------------------

    def submit_run(
        self,
        project_id: str,
        eventlog_paths: Iterable[str | Path],
        *,
        cluster_report: Mapping[str, Any] | None = None,
        external_run_id: str | None = None,
        status: str | None = None,
    ) -> RunSummary:
        """Uploads a run's event log file(s) (or one zip), optional cluster report and result state."""
        handles = []
        try:
            files: list[tuple[str, tuple[str, Any, str]]] = []
            for path in eventlog_paths:
                handle = open(path, "rb")  # noqa: SIM115 - closed in finally
                handles.append(handle)
                files.append(("eventlog", (Path(path).name, handle, "application/octet-stream")))
            if not files:
                raise SetpointError("submit_run needs at least one event log file", code="NO_EVENTLOG")
            data: dict[str, str] = {}
            if cluster_report is not None:
                files.append(("cluster_report", ("cluster_report.json", json.dumps(cluster_report).encode(), "application/json")))
            if external_run_id is not None:
                data["external_run_id"] = external_run_id
            if status is not None:
                data["status"] = status
            return self.request("POST", f"/api/v1/projects/{project_id}/runs", files=files, data=data)
        finally:
            for handle in handles:
                handle.close()

    def submit_run_uri(
        self,
        project_id: str,
        eventlog_uri: str,
        *,
        cluster_report: Mapping[str, Any] | None = None,
        external_run_id: str | None = None,
    ) -> RunSummary:
        body: dict[str, Any] = {"eventlog_uri": eventlog_uri}
        if cluster_report is not None:
            body["cluster_report"] = cluster_report
        if external_run_id is not None:
            body["external_run_id"] = external_run_id
        return self.request("POST", f"/api/v1/projects/{project_id}/runs", json=body)

    def collect_databricks_run(self, project_id: str, run_id: str, *, workspace_id: str | None = None) -> DatabricksRunQueued:
        """Asks Setpoint to collect a finished Databricks run (logs, cluster, events) from the workspace."""
        body: dict[str, Any] = {"run_id": run_id}
        if workspace_id:
            body["workspace_id"] = workspace_id
        return self.request("POST", f"/api/v1/projects/{project_id}/databricks-runs", json=body)

    def collect_emr_step(
        self, project_id: str, cluster_id: str, step_id: str, *, account_id: str | None = None
    ) -> EmrStepQueued:
        """Asks Setpoint to collect an EMR step (cluster, instances, event log) from the project's EMR account.

        Setpoint waits for a step still running; collection is idempotent per project, cluster and step.
        """
        body: dict[str, Any] = {"cluster_id": cluster_id, "step_id": step_id}
        if account_id:
            body["account_id"] = account_id
        return self.request("POST", f"/api/v1/projects/{project_id}/emr-runs", json=body)

    def get_run(self, project_id: str, run_id: str) -> Run:
        """One run with its pipeline state, cost and parsed profile summary."""
        return self.request("GET", f"/api/v1/projects/{project_id}/runs/{run_id}")

    def wait_for_run(self, project_id: str, run_id: str, *, timeout_s: float = 600.0, poll_s: float = 1.0) -> Run:
        """Polls until Setpoint has processed the run (pipeline state DONE or FAILED) and returns it."""
        deadline = time.monotonic() + timeout_s
        while True:
            run = self.get_run(project_id, run_id)
            if run.get("pipeline_state") in TERMINAL_PIPELINE_STATES:
                return run
            if time.monotonic() >= deadline:
                raise SetpointTimeoutError(
                    f"run {run_id} still {run.get('pipeline_state')} after {timeout_s:.0f}s", code="RUN_TIMEOUT"
                )
            self.sleep(poll_s)

    def list_runs(self, project_id: str) -> list[RunSummary]:
        body = self.request("GET", f"/api/v1/projects/{project_id}/runs")
        return list(body.get("items", body) if isinstance(body, dict) else body)

    # -- recommendations -------------------------------------------------------------------

    def create_recommendation(self, project_id: str) -> RecommendationRequested:
        return self.request("POST", f"/api/v1/projects/{project_id}/recommendations", json={})

    def get_recommendation(self, project_id: str, recommendation_id: str) -> Recommendation:
        return self.request("GET", f"/api/v1/projects/{project_id}/recommendations/{recommendation_id}")

    def get_latest_recommendation(self, project_id: str) -> Recommendation | None:
        try:
            return self.request("GET", f"/api/v1/projects/{project_id}/recommendations/latest")
        except SetpointError as error:
            if error.status == 404:
                return None
            raise

    def wait_for_recommendation(
        self, project_id: str, recommendation_id: str, *, timeout_s: float = 600.0, poll_s: float = 2.0
    ) -> Recommendation:
        deadline = time.monotonic() + timeout_s
        while True:
            recommendation = self.get_recommendation(project_id, recommendation_id)
            if recommendation.get("state") in TERMINAL_RECOMMENDATION_STATES:
                return recommendation
            if time.monotonic() >= deadline:
                raise SetpointTimeoutError(
                    f"recommendation {recommendation_id} still {recommendation.get('state')} after {timeout_s:.0f}s",
                    code="RECOMMENDATION_TIMEOUT",
                )
            self.sleep(poll_s)

    def list_recommendations(self, project_id: str, *, limit: int = 20, state: str | None = None) -> list[Recommendation]:
        """The project's recommendations, newest first."""
        params: dict[str, Any] = {"limit": limit}
        if state:
            params["state"] = state
        body = self.request("GET", f"/api/v1/projects/{project_id}/recommendations", params=params)
        return list(body.get("items", body) if isinstance(body, dict) else body)

    def list_approvals(self, *, project_id: str | None = None, state: str = "waiting", limit: int = 100) -> list[ApprovalListItemsItem]:
        """Learning runs of projects in apply mode approve-learning, by state (default: waiting), newest first."""
        params: dict[str, Any] = {"state": state, "limit": limit}
        if project_id:
            params["project_id"] = project_id
        return list(self.request("GET", "/api/v1/approvals", params=params)["items"])

    def apply_recommendation(self, project_id: str, recommendation_id: str) -> Recommendation:
        return self.request("POST", f"/api/v1/projects/{project_id}/recommendations/{recommendation_id}/apply", json={})

    # -- connections -----------------------------------------------------------------------

    def get_connection(self, connection_id: str) -> Connection:
        """A connected account of any platform; its `settings` are what the platform shows, never a secret."""
        return self.request("GET", f"/api/v1/connections/{connection_id}")

    def get_workspace(self, workspace_id: str) -> Workspace:
        """A Databricks workspace: its connection, with its settings beside its id and name."""
        connection = self.get_connection(workspace_id)
        return cast(
            Workspace,
            {
                "id": connection["id"],
                "name": connection["name"],
                "platform": connection["platform"],
                **connection["settings"],
                "created_at": connection["created_at"],
                "updated_at": connection["updated_at"],
            },
        )


def _decode(response: httpx.Response) -> Any:
    if response.status_code == 204 or not response.content:
        body: Any = {}
    else:
        try:
            body = response.json()
        except ValueError:
            body = {"error": {"code": "BAD_RESPONSE", "message": response.text[:300]}}
    if response.is_success:
        return body
    error = body.get("error", {}) if isinstance(body, dict) else {}
    message = error.get("message") or f"HTTP {response.status_code}"
    raise SetpointError(message, code=error.get("code", f"HTTP_{response.status_code}"), status=response.status_code)


def _epoch_ms(value: Any) -> int:
    if isinstance(value, (int, float)):
        return int(value)
    from datetime import datetime

    return int(datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp() * 1000)
