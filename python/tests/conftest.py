"""Shared pytest fixtures: `databricks_emulator` starts `setpoint emulator`, `setpoint_server` `setpoint serve`."""

import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


class RunningEmulator:
    def __init__(self, process: subprocess.Popen, url: str, token: str, service_principals=()):
        self.process = process
        self.url = url
        self.token = token
        self.service_principals = list(service_principals)

    def service_principal(self, kind: str) -> dict:
        """The emulator's test service principal of a kind (`databricks` or `entra`)."""
        return next(principal for principal in self.service_principals if principal["kind"] == kind)

    def admin(self, method: str, path: str, body=None):
        """Calls the emulator's admin API (clock, faults) with the standard library only."""
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")


@pytest.fixture(scope="session")
def databricks_emulator():
    """Starts `node bin/setpoint.js emulator --port 0` and yields its URL and token."""
    _require_built_setpoint()
    process = subprocess.Popen(
        [
            "node",
            "bin/setpoint.js",
            "emulator",
            "--port",
            "0",
            "--seed",
            "7",
            "--clock-speed",
            os.environ.get("SETPOINT_EMULATOR_CLOCK_SPEED", "3600"),
            "--json",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first_line = process.stdout.readline()
    if not first_line:
        process.kill()
        raise RuntimeError(f"the emulator did not start: {process.stderr.read()}")
    listening = json.loads(first_line)
    try:
        yield RunningEmulator(
            process, listening["url"], listening["token"], listening.get("service_principals", ())
        )
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


class RunningSetpoint:
    def __init__(self, process: subprocess.Popen, url: str, api_key_id: str, api_key_secret: str):
        self.process = process
        self.url = url
        self.api_key_id = api_key_id
        self.api_key_secret = api_key_secret

    def env(self) -> dict:
        """The variables `SetpointClient()` reads its server and key from."""
        return {"SETPOINT_URL": self.url, "SETPOINT_API_KEY_ID": self.api_key_id, "SETPOINT_API_KEY_SECRET": self.api_key_secret}

    def client(self, **kwargs):
        from setpoint import SetpointClient

        return SetpointClient(url=self.url, api_key_id=self.api_key_id, api_key_secret=self.api_key_secret, **kwargs)


def _require_built_setpoint():
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (REPO_ROOT / "packages" / "setpoint" / "dist" / "cli" / "main.js").exists():
        pytest.skip("Setpoint is not built (run `npm run build` first)")


@pytest.fixture(scope="session")
def setpoint_server(tmp_path_factory):
    """Starts `node bin/setpoint.js serve --port 0` (SQLite, with the pipeline worker) and an API key for it."""
    _require_built_setpoint()
    data_dir = tmp_path_factory.mktemp("setpoint-data")
    # The emulator listens on loopback: Setpoint may call it (an EMR account's endpoint and S3).
    # Collection retries a step whose logs are not uploaded yet: every half second here, not every 5 s.
    env = {
        **os.environ,
        "SETPOINT_LOG_LEVEL": "warn",
        "SETPOINT_OUTBOUND_ALLOW_LIST": "127.0.0.1",
        "SETPOINT_JOB_RETRY_DELAY_SECONDS": "0.5",
        # The emulator's clock is advanced by days, ahead of the server's: its runs are not refused as future-dated.
        "SETPOINT_RUN_CLOCK_TOLERANCE_HOURS": "8760",
    }
    process = subprocess.Popen(
        ["node", "bin/setpoint.js", "serve", "--port", "0", "--data-dir", str(data_dir)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    output = []
    url = None
    for line in process.stdout:
        output.append(line)
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            url = match.group(1)
            break
    if url is None:
        process.kill()
        raise RuntimeError(f"setpoint serve did not start:\n{''.join(output)}")
    # Keep draining the output so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    try:
        created = subprocess.run(
            ["node", "bin/setpoint.js", "keys", "create", "--name", "pytest", "--data-dir", str(data_dir), "--json"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        key = json.loads(created.stdout)
        yield RunningSetpoint(process, url, key["id"], key["secret"])
    finally:
        _stop(process)
