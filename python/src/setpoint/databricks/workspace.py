"""The few Databricks REST calls Setpoint needs to collect a run: runs, clusters, events and log files."""

from __future__ import annotations

import base64
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import httpx

from ..errors import SetpointError
from ..retry import RetryPolicy, send_with_retries

DBFS_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class LogFile:
    path: str
    name: str
    is_dir: bool
    size: int
    modified_at: int


@dataclass
class DatabricksWorkspace:
    """A workspace reached with a token; host and token default to `DATABRICKS_HOST`/`DATABRICKS_TOKEN`."""

    host: str | None = None
    token: str | None = None
    timeout_s: float = 60.0
    attempts: int = 6
    transport: httpx.BaseTransport | None = None
    sleep: Callable[[float], None] = time.sleep
    _http: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        host = self.host or os.environ.get("DATABRICKS_HOST")
        self.token = self.token or os.environ.get("DATABRICKS_TOKEN")
        if not host or not self.token:
            raise SetpointError(
                "no Databricks workspace: pass host/token or set DATABRICKS_HOST and DATABRICKS_TOKEN",
                code="NO_WORKSPACE",
            )
        self.host = (host if "://" in host else f"https://{host}").rstrip("/")
        self._http = httpx.Client(
            base_url=self.host,
            timeout=self.timeout_s,
            transport=self.transport,
            headers={"authorization": f"Bearer {self.token}", "user-agent": "setpoint-client-python"},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "DatabricksWorkspace":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = send_with_retries(
            lambda: self._http.request(method, path, **kwargs),
            RetryPolicy(attempts=self.attempts),
            self.sleep,
            lambda error: SetpointError(
                f"cannot reach the Databricks workspace at {self.host}: {error}", code="WORKSPACE_UNREACHABLE"
            ),
        )
        if response.is_success:
            return response
        try:
            body = response.json()
        except ValueError:
            body = {}
        code = body.get("error_code", f"HTTP_{response.status_code}") if isinstance(body, dict) else f"HTTP_{response.status_code}"
        message = body.get("message", response.text[:300]) if isinstance(body, dict) else response.text[:300]
        raise SetpointError(f"Databricks {method} {path}: {message}", code=code, status=response.status_code)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Any REST call (`/api/2.x/…`), with retries on throttling and transient failures; the decoded JSON answer."""
        response = self._call(method, path, **kwargs)
        return response.json() if response.content else {}

    # -- jobs and clusters ---------------------------------------------------------------

    def get_run(self, run_id: int | str) -> dict[str, Any]:
        return self.request("GET", "/api/2.1/jobs/runs/get", params={"run_id": str(run_id)})

    def get_cluster(self, cluster_id: str) -> dict[str, Any]:
        return self.request("GET", "/api/2.1/clusters/get", params={"cluster_id": cluster_id})

    def cluster_events(self, cluster_id: str) -> list[dict[str, Any]]:
        """Every event of the cluster, oldest first, following `next_page`."""
        events: list[dict[str, Any]] = []
        request: dict[str, Any] = {"cluster_id": cluster_id, "order": "ASC", "limit": 500}
        while True:
            body = self.request("POST", "/api/2.1/clusters/events", json=request)
            events.extend(body.get("events") or [])
            next_page = body.get("next_page")
            if not next_page:
                return events
            request = next_page

    # -- log files: dbfs:/ through the DBFS API, /Volumes/ through the Files API ------------

    def list_dir(self, path: str) -> list[LogFile]:
        """The entries of a directory; empty when it does not exist (yet)."""
        try:
            if path.startswith("dbfs:/"):
                body = self.request("GET", "/api/2.0/dbfs/list", params={"path": path})
                return [
                    LogFile(
                        path=_dbfs_uri(entry["path"]),
                        name=entry["path"].rstrip("/").rsplit("/", 1)[-1],
                        is_dir=bool(entry.get("is_dir")),
                        size=int(entry.get("file_size") or 0),
                        modified_at=int(entry.get("modification_time") or 0),
                    )
                    for entry in body.get("files") or []
                ]
            return list(self._list_volume_dir(path))
        except SetpointError as error:
            if error.status == 404 or error.code == "RESOURCE_DOES_NOT_EXIST":
                return []
            raise

    def _list_volume_dir(self, path: str) -> Iterator[LogFile]:
        params: dict[str, str] = {}
        while True:
            body = self.request("GET", f"/api/2.0/fs/directories{_volume_path(path)}", params=params)
            for entry in body.get("contents") or []:
                yield LogFile(
                    path=entry["path"].rstrip("/"),
                    name=entry.get("name") or entry["path"].rstrip("/").rsplit("/", 1)[-1],
                    is_dir=bool(entry.get("is_directory")),
                    size=int(entry.get("file_size") or 0),
                    modified_at=int(entry.get("last_modified") or 0),
                )
            token = body.get("next_page_token")
            if not token:
                return
            params = {"page_token": token}

    def read_file(self, path: str, size: int) -> bytes:
        if not path.startswith("dbfs:/"):
            return self._call("GET", f"/api/2.0/fs/files{_volume_path(path)}").content
        chunks: list[bytes] = []
        offset = 0
        while offset < size:
            body = self.request("GET", "/api/2.0/dbfs/read", params={"path": path, "offset": offset, "length": DBFS_READ_CHUNK})
            read = int(body.get("bytes_read") or 0)
            if read == 0:
                break
            chunks.append(base64.b64decode(body.get("data") or ""))
            offset += read
        return b"".join(chunks)


def _dbfs_uri(path: str) -> str:
    return path if path.startswith("dbfs:") else f"dbfs:{path}"


def _volume_path(path: str) -> str:
    if not path.startswith("/Volumes/"):
        raise SetpointError(f"log destination must start with dbfs:/ or /Volumes/, got {path!r}", code="BAD_LOG_DESTINATION")
    return path
