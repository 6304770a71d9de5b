import json

import httpx
import pytest

from setpoint import SetpointClient, SetpointError, SetpointTimeoutError


class FakeServer:
    """Answers like the Setpoint API; records every request."""

    def __init__(self):
        self.requests = []
        self.tokens_issued = 0
        self.fail_next = []
        self.recommendation_states = ["PENDING", "SUCCESS"]
        self.run_states = ["PARSING", "COSTING", "DONE"]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fail_next:
            status = self.fail_next.pop(0)
            return httpx.Response(status, headers={"retry-after": "0"}, json={"error": {"code": "X", "message": "try later"}})
        path = request.url.path
        if path == "/api/v1/auth/token":
            body = json.loads(request.content)
            if body["api_key_secret"] != "s3cret":
                return httpx.Response(401, json={"error": {"code": "UNAUTHORIZED", "message": "invalid API key"}})
            self.tokens_issued += 1
            return httpx.Response(200, json={"access_token": f"tok-{self.tokens_issued}", "expires_at": 4102444800000})
        if request.headers.get("authorization") != f"Bearer tok-{self.tokens_issued}":
            return httpx.Response(401, json={"error": {"code": "UNAUTHORIZED", "message": "bad token"}})
        if path == "/api/v1/projects" and request.method == "GET":
            projects = [{"id": "p-1", "app_id": "orders"}, {"id": "p-2", "app_id": "orders-2"}]
            app_id = request.url.params.get("app_id")
            found = [project for project in projects if app_id is None or project["app_id"] == app_id]
            return httpx.Response(200, json={"items": found, "total": len(found)})
        if path == "/api/v1/projects" and request.method == "POST":
            return httpx.Response(201, json={"id": "p-new", **json.loads(request.content)})
        if path.endswith("/recommendations/latest"):
            return httpx.Response(404, json={"error": {"code": "NOT_FOUND", "message": "no recommendation yet"}})
        if "/recommendations/" in path:
            state = self.recommendation_states.pop(0) if self.recommendation_states else "PENDING"
            return httpx.Response(200, json={"id": "r-1", "state": state})
        if "/runs/" in path and request.method == "GET":
            state = self.run_states.pop(0) if self.run_states else "PARSING"
            return httpx.Response(200, json={"id": "run-1", "pipeline_state": state})
        if path == "/api/v1/connections/ws-1" and request.method == "GET":
            settings = {"cloud": "aws", "region": "us-east-1", "host": "https://dbc-1.cloud.databricks.com", "plan_type": "Premium", "compute_type": None, "has_credentials": True, "has_webhook_credentials": False}
            return httpx.Response(200, json={"id": "ws-1", "name": "prod", "platform": "databricks", "settings": settings, "created_at": 1, "updated_at": 2})
        if path.endswith("/runs") and request.method == "POST":
            return httpx.Response(202, json={"id": "run-1", "content_type": request.headers["content-type"].split(";")[0]})
        return httpx.Response(404, json={"error": {"code": "ROUTE_NOT_FOUND", "message": f"no route {path}"}})


def make_client(server, **kwargs):
    return SetpointClient(
        url="http://setpoint.test",
        api_key_id="k-1",
        api_key_secret=kwargs.pop("secret", "s3cret"),
        transport=httpx.MockTransport(server),
        sleep=lambda _s: None,
        **kwargs,
    )


def test_exchanges_the_api_key_once_and_reuses_the_token():
    server = FakeServer()
    client = make_client(server)

    client.list_projects()
    client.list_projects()

    assert server.tokens_issued == 1
    assert [r.url.path for r in server.requests] == ["/api/v1/auth/token", "/api/v1/projects", "/api/v1/projects"]


def test_get_workspace_reads_the_connection_and_shows_it_as_a_workspace():
    server = FakeServer()
    workspace = make_client(server).get_workspace("ws-1")

    assert [r.url.path for r in server.requests] == ["/api/v1/auth/token", "/api/v1/connections/ws-1"]
    assert workspace == {
        "id": "ws-1",
        "name": "prod",
        "platform": "databricks",
        "cloud": "aws",
        "region": "us-east-1",
        "host": "https://dbc-1.cloud.databricks.com",
        "plan_type": "Premium",
        "compute_type": None,
        "has_credentials": True,
        "has_webhook_credentials": False,
        "created_at": 1,
        "updated_at": 2,
    }


def test_refreshes_the_token_after_a_401():
    server = FakeServer()
    client = make_client(server)
    client.list_projects()
    server.tokens_issued += 1  # the server rotated its tokens

    projects = client.list_projects()

    assert [p["id"] for p in projects] == ["p-1", "p-2"]
    assert server.tokens_issued == 3


def test_bad_credentials_raise_a_readable_error():
    client = make_client(FakeServer(), secret="wrong")

    with pytest.raises(SetpointError, match="invalid API key") as raised:
        client.list_projects()
    assert raised.value.status == 401


def test_retries_throttled_requests():
    server = FakeServer()
    server.fail_next = [429, 503]
    client = make_client(server)

    assert client.find_project_by_app_id("orders")["id"] == "p-1"


def test_missing_credentials_are_reported(monkeypatch):
    monkeypatch.delenv("SETPOINT_API_KEY_ID", raising=False)
    monkeypatch.delenv("SETPOINT_API_KEY_SECRET", raising=False)

    with pytest.raises(SetpointError, match="no Setpoint API key"):
        SetpointClient(url="http://x")


def test_find_project_matches_app_id_exactly():
    server = FakeServer()
    client = make_client(server)

    assert client.find_project_by_app_id("orders-2")["id"] == "p-2"
    assert client.find_project_by_app_id("orders-3") is None
    assert [request.url.params.get("app_id") for request in server.requests if request.url.path == "/api/v1/projects"] == ["orders-2", "orders-3"]


def test_latest_recommendation_is_none_when_there_is_none():
    assert make_client(FakeServer()).get_latest_recommendation("p-1") is None


def test_wait_for_recommendation_polls_until_terminal():
    server = FakeServer()
    client = make_client(server)

    assert client.wait_for_recommendation("p-1", "r-1", poll_s=0)["state"] == "SUCCESS"


def test_wait_for_recommendation_times_out():
    server = FakeServer()
    server.recommendation_states = []
    client = make_client(server)

    with pytest.raises(SetpointTimeoutError):
        client.wait_for_recommendation("p-1", "r-1", timeout_s=0, poll_s=0)


def test_submit_run_uploads_multipart(tmp_path):
    log = tmp_path / "eventlog"
    log.write_text('{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}\n')
    server = FakeServer()

    result = make_client(server).submit_run("p-1", [log], cluster_report={"plan_type": "Premium"})

    upload = server.requests[-1]
    assert result["content_type"] == "multipart/form-data"
    assert b'name="eventlog"; filename="eventlog"' in upload.content
    assert b'name="cluster_report"' in upload.content
    assert b'"plan_type": "Premium"' in upload.content


def test_wait_for_run_polls_until_the_pipeline_is_done():
    client = make_client(FakeServer())

    assert client.wait_for_run("p-1", "run-1", poll_s=0)["pipeline_state"] == "DONE"


def test_wait_for_run_times_out_naming_the_state():
    server = FakeServer()
    server.run_states = []
    client = make_client(server)

    with pytest.raises(SetpointTimeoutError, match="run run-1 still PARSING") as raised:
        client.wait_for_run("p-1", "run-1", timeout_s=0)
    assert raised.value.code == "RUN_TIMEOUT"
