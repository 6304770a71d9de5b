"""Python integration package for Setpoint: REST client, Airflow and Databricks helpers."""

from .client import SetpointClient
from .errors import SetpointError, SetpointTimeoutError
from .retry import RetryPolicy

__version__ = "0.1.0"
__all__ = ["RetryPolicy", "SetpointClient", "SetpointError", "SetpointTimeoutError", "__version__"]
