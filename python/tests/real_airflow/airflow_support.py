"""Helpers shared by the real-Airflow tests (a plain module: pytest puts this folder on sys.path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DAGS_FOLDER = Path(__file__).resolve().parent / "dags"
AIRFLOW = Path(sys.executable).with_name("airflow")


def run_dag(env: dict[str, str], dag_id: str, extra_env: dict[str, str]) -> str:
    """`airflow dags test <dag_id>`; returns its output after asserting the DAG run succeeded."""
    completed = subprocess.run(
        [str(AIRFLOW), "dags", "test", dag_id],
        env={**env, **extra_env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-4000:]
    return output
