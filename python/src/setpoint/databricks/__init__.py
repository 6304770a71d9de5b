"""Databricks-side helpers: collect a finished run inside the workspace and record it in Setpoint."""

from .collect import CollectedRun, collect_run
from .recording import record_run
from .workspace import DatabricksWorkspace

__all__ = ["CollectedRun", "DatabricksWorkspace", "collect_run", "record_run"]
