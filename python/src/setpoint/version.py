"""Version compatibility between the Python package and a Setpoint server."""

from __future__ import annotations


def parse_version(text: str) -> tuple[int, int, int]:
    """Parse a `MAJOR.MINOR.PATCH` version, rejecting anything else with a clear message."""
    parts = text.strip().split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise ValueError(f"not a MAJOR.MINOR.PATCH version: {text!r}")
    major, minor, patch = (int(part) for part in parts)
    return major, minor, patch


def is_compatible(client_version: str, server_version: str) -> bool:
    """Client and server speak the same API while their major versions match (0.x: minor too)."""
    client, server = parse_version(client_version), parse_version(server_version)
    if client[0] == 0 or server[0] == 0:
        return client[:2] == server[:2]
    return client[0] == server[0]
