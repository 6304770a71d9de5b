"""Shared pytest fixtures. `databricks_emulator` starts `setpoint emulator` for SDK tests."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


class RunningEmulator:
    def __init__(self, process: subprocess.Popen, url: str, token: str):
        self.process = process
        self.url = url
        self.token = token

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
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (REPO_ROOT / "dist" / "cli" / "main.js").exists():
        pytest.skip("Setpoint is not built (run `npm run build` first)")
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
        yield RunningEmulator(process, listening["url"], listening["token"])
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
