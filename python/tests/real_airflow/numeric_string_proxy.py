"""A pass-through proxy to the workspace emulator that turns numeric strings back into numbers.

The Databricks provider sends every number in a runs/submit payload as a string (`normalise_json_content`:
"Databricks can tolerate either numeric or string types in the API backend"). The emulator's request
schemas accept numbers only, so until they accept numeric strings too, the real-Airflow test talks to
the emulator through this proxy. It converts nothing but the numeric cluster and job fields below.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NUMERIC_FIELDS = frozenset(
    {
        "num_workers",
        "min_workers",
        "max_workers",
        "first_on_demand",
        "spot_bid_price_percent",
        "spot_bid_max_price",
        "ebs_volume_count",
        "ebs_volume_size",
        "ebs_volume_iops",
        "ebs_volume_throughput",
        "autotermination_minutes",
        "timeout_seconds",
        "max_retries",
        "min_retry_interval_millis",
    }
)
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def restore_numbers(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: restore_numbers(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [restore_numbers(item, key) for item in value]
    if key in NUMERIC_FIELDS and isinstance(value, str) and NUMBER.match(value):
        return float(value) if "." in value else int(value)
    return value


class NumericStringProxy:
    def __init__(self, target: str):
        self.target = target.rstrip("/")
        self.requests: list[tuple[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                if body and "json" in (self.headers.get("content-type") or ""):
                    body = json.dumps(restore_numbers(json.loads(body))).encode()
                proxy.requests.append((self.command, self.path))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
                request = urllib.request.Request(f"{proxy.target}{self.path}", data=body, method=self.command, headers=headers)
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, reply_headers, payload = response.status, response.headers, response.read()
                except urllib.error.HTTPError as error:
                    status, reply_headers, payload = error.code, error.headers, error.read()
                self.send_response(status)
                for name, value in reply_headers.items():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length", "date", "server"):
                        self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _forward

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "NumericStringProxy":
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
