"""Fixtures shared by the real-Airflow tests: one Airflow home (SQLite metadata DB, migrated once) whose
connections point at the emulator — `databricks_emulator` for the Databricks operator, `aws_emulator`
(the emulator's EMR face as `endpoint_url`) for the Amazon provider's operators."""

from __future__ import annotations

import json
import os
import subprocess
from urllib.parse import urlsplit

import pytest

from airflow_support import AIRFLOW, DAGS_FOLDER


@pytest.fixture(scope="session")
def airflow_env(tmp_path_factory, databricks_emulator):
    home = tmp_path_factory.mktemp("airflow-home")
    emulator = urlsplit(databricks_emulator.url)
    env = {
        **os.environ,
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS_FOLDER),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        # The provider sends numbers as strings ("num_workers": "6"); the emulator parses them as Databricks does.
        "AIRFLOW_CONN_DATABRICKS_EMULATOR": json.dumps(
            {"conn_type": "databricks", "host": emulator.hostname, "port": emulator.port, "schema": "http", "password": databricks_emulator.token}
        ),
        # The emulator checks that requests are SigV4-signed, not which key signed them.
        "AIRFLOW_CONN_AWS_EMULATOR": json.dumps(
            {
                "conn_type": "aws",
                "login": "AKIAEMULATOR",
                "password": "emulator-secret",
                "extra": {"endpoint_url": databricks_emulator.url, "region_name": "us-east-1"},
            }
        ),
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    subprocess.run([str(AIRFLOW), "db", "migrate"], env=env, check=True, capture_output=True, text=True, timeout=300)
    return env
