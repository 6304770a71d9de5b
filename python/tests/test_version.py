import json
from pathlib import Path

import pytest

import setpoint
from setpoint.version import is_compatible, parse_version

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_package_version_matches_the_server_package():
    server_version = json.loads((REPO_ROOT / "package.json").read_text())["version"]
    assert setpoint.__version__ == server_version


def test_parse_version_rejects_garbage():
    with pytest.raises(ValueError, match="not a MAJOR.MINOR.PATCH"):
        parse_version("1.2")


@pytest.mark.parametrize(
    ("client", "server", "expected"),
    [("0.1.0", "0.1.5", True), ("0.1.0", "0.2.0", False), ("1.0.0", "1.9.3", True), ("1.0.0", "2.0.0", False)],
)
def test_compatibility_rules(client, server, expected):
    assert is_compatible(client, server) is expected
