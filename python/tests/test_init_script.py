"""The cluster init script, run by bash with a stand-in pip and a real Setpoint server."""

import os
import subprocess
from importlib.resources import files

import pytest

SCRIPT = files("setpoint.databricks") / "init-script.sh"


@pytest.fixture()
def fake_pip(tmp_path):
    """A pip that records its arguments and fails when FAKE_PIP_FAIL is set."""
    calls = tmp_path / "pip-calls"
    pip = tmp_path / "pip"
    pip.write_text(f'#!/bin/bash\necho "$*" >> {calls}\n[ -z "${{FAKE_PIP_FAIL:-}}" ]\n')
    pip.chmod(0o755)
    return pip, calls


def run_script(pip, **env):
    base = {"PATH": os.environ["PATH"], "DB_IS_DRIVER": "TRUE", "SETPOINT_PIP": str(pip), "SETPOINT_PACKAGE": "/Volumes/main/setpoint/dist/setpoint_client.whl"}
    return subprocess.run(["bash", str(SCRIPT)], env={**base, **env}, capture_output=True, text=True, timeout=60)


def test_installs_the_package_and_checks_the_key_with_setpoint(fake_pip, setpoint_server):
    pip, calls = fake_pip

    result = run_script(pip, **setpoint_server.env())

    assert result.returncode == 0
    assert calls.read_text().split() == ["install", "--quiet", "--disable-pip-version-check", "/Volumes/main/setpoint/dist/setpoint_client.whl"]
    assert result.stdout.strip() == f"setpoint: installed; {setpoint_server.url} accepts this cluster's API key"


def test_a_wrong_key_is_reported_without_failing_the_cluster(fake_pip, setpoint_server):
    pip, _ = fake_pip

    result = run_script(pip, **{**setpoint_server.env(), "SETPOINT_API_KEY_SECRET": "sps_wrong"})

    assert result.returncode == 0
    assert result.stderr.strip() == f"setpoint: installed, but {setpoint_server.url} refused the API key (HTTP 401)"


def test_does_nothing_on_workers(fake_pip):
    pip, calls = fake_pip

    result = run_script(pip, DB_IS_DRIVER="FALSE")

    assert result.returncode == 0
    assert not calls.exists()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SETPOINT_PACKAGE": ""}, "setpoint: SETPOINT_PACKAGE is not set: set it to the setpoint-client wheel (a /Volumes/… or /Workspace/… path)"),
        ({"FAKE_PIP_FAIL": "1"}, "setpoint: pip could not install /Volumes/main/setpoint/dist/setpoint_client.whl; runs on this cluster will not be recorded"),
        ({"SETPOINT_URL": "http://127.0.0.1:9"}, "setpoint: installed, but not configured: SETPOINT_API_KEY_ID SETPOINT_API_KEY_SECRET not set (add them to the cluster's spark_env_vars)"),
        (
            {"SETPOINT_URL": "http://127.0.0.1:9", "SETPOINT_API_KEY_ID": "k", "SETPOINT_API_KEY_SECRET": "s"},
            "setpoint: installed, but http://127.0.0.1:9 cannot be reached from this cluster",
        ),
    ],
)
def test_every_problem_is_one_line_and_never_fails_the_cluster(fake_pip, env, message):
    pip, _ = fake_pip

    result = run_script(pip, **env)

    assert result.returncode == 0
    assert result.stderr.strip() == message
