"""Python integration package for Setpoint."""

__version__ = "0.1.0"
