"""The official Databricks SDK for Python signs in to the workspace emulator with OAuth M2M."""

import pytest

sdk = pytest.importorskip("databricks.sdk")
from databricks.sdk.errors import DatabricksError  # noqa: E402


def _m2m_client(emulator, secret):
    principal = emulator.service_principal("databricks")
    return sdk.WorkspaceClient(
        host=emulator.url,
        client_id=principal["client_id"],
        client_secret=secret,
        auth_type="oauth-m2m",
    )


def test_m2m_service_principal_lists_jobs(databricks_emulator):
    principal = databricks_emulator.service_principal("databricks")
    workspace = _m2m_client(databricks_emulator, principal["client_secret"])
    jobs = list(workspace.jobs.list(limit=5))
    assert len(jobs) >= 5
    # the SDK authenticated with a bearer token issued by the emulator's /oidc/v1/token, not the PAT
    headers = workspace.config.authenticate()
    assert headers["Authorization"].startswith("Bearer dbo")
    assert databricks_emulator.token not in headers["Authorization"]


def test_m2m_wrong_secret_is_refused(databricks_emulator):
    with pytest.raises((DatabricksError, ValueError)) as refused:
        _m2m_client(databricks_emulator, "dose-wrong-secret").jobs.list(limit=1).__next__()
    assert "invalid_client" in str(refused.value) or "401" in str(refused.value)
