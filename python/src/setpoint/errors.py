"""Errors raised by the Setpoint client."""

from __future__ import annotations


class SetpointError(Exception):
    """A request to the Setpoint API failed; carries the API's error code and HTTP status."""

    def __init__(self, message: str, *, code: str = "SETPOINT_ERROR", status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


class SetpointTimeoutError(SetpointError):
    """Waiting for a recommendation took longer than allowed."""
