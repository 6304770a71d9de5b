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


def _entra_client(emulator, secret, tenant=None):
    """The SDK's azure-client-secret sign-in, with the emulator as its Entra authority."""
    from databricks.sdk.config import Config
    from databricks.sdk.environments import (
        ARM_DATABRICKS_RESOURCE_ID,
        AzureEnvironment,
        Cloud,
        DatabricksEnvironment,
    )

    principal = emulator.service_principal("entra")
    authority = AzureEnvironment(
        name="SETPOINT_EMULATOR",
        service_management_endpoint="https://management.core.windows.net/",
        resource_manager_endpoint=f"{emulator.url}/",
        active_directory_endpoint=f"{emulator.url}/",
    )
    config = Config(
        host=emulator.url,
        azure_client_id=principal["client_id"],
        azure_client_secret=secret,
        azure_tenant_id=tenant or principal["tenant_id"],
        auth_type="azure-client-secret",
        databricks_environment=DatabricksEnvironment(
            Cloud.AZURE,
            ".azuredatabricks.net",
            azure_application_id=ARM_DATABRICKS_RESOURCE_ID,
            azure_environment=authority,
        ),
    )
    return sdk.WorkspaceClient(config=config)


def test_entra_service_principal_lists_jobs(databricks_emulator):
    principal = databricks_emulator.service_principal("entra")
    workspace = _entra_client(databricks_emulator, principal["client_secret"])
    jobs = list(workspace.jobs.list(limit=5))
    assert len(jobs) >= 5
    # an Entra token for the Azure Databricks resource, and an Azure management token beside it
    headers = workspace.config.authenticate()
    assert headers["Authorization"].startswith("Bearer eyJ0eXAi")
    assert headers["X-Databricks-Azure-SP-Management-Token"]
    assert headers["X-Databricks-Azure-SP-Management-Token"] not in headers["Authorization"]
    assert databricks_emulator.token not in headers["Authorization"]


def test_entra_management_token_does_not_open_the_workspace(databricks_emulator):
    import urllib.error
    import urllib.request

    principal = databricks_emulator.service_principal("entra")
    headers = _entra_client(databricks_emulator, principal["client_secret"]).config.authenticate()
    management = headers["X-Databricks-Azure-SP-Management-Token"]
    request = urllib.request.Request(
        f"{databricks_emulator.url}/api/2.2/jobs/list",
        headers={"Authorization": f"Bearer {management}"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    # a token the workspace does not accept for its API: 403 "Invalid access token.", as Databricks answers
    assert refused.value.code == 403


def test_entra_wrong_secret_is_refused(databricks_emulator):
    with pytest.raises((DatabricksError, ValueError)) as refused:
        _entra_client(databricks_emulator, "entra-wrong-secret").jobs.list(limit=1).__next__()
    assert "invalid_client" in str(refused.value) or "AADSTS7000215" in str(refused.value)


def test_entra_other_tenant_is_refused(databricks_emulator):
    principal = databricks_emulator.service_principal("entra")
    with pytest.raises((DatabricksError, ValueError)) as refused:
        _entra_client(
            databricks_emulator, principal["client_secret"], tenant="00000000-0000-4000-8000-othertenant"
        ).jobs.list(limit=1).__next__()
    assert "invalid_client" in str(refused.value) or "AADSTS7000215" in str(refused.value)
