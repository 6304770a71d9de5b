"""`python -m setpoint.databricks.record_run`: the job-task entry point (see `recording.py`)."""

import sys

from .recording import main

if __name__ == "__main__":
    sys.exit(main())
