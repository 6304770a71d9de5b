"""Judges Databricks clusters with code Setpoint did not write: the official Databricks SDK and bundle types.

Reads a JSON corpus (path in argv[1]) of
  {"databricks": [{"id", "cluster", "job"?}]}
and prints one JSON object: for each Databricks item whether `ClusterSpec.from_dict(...).as_dict()` gives
the cluster back (databricks-sdk), whether `JobSettings` gives the job back, and whether databricks-bundles'
`ClusterSpec` takes it. (EMR requests: `emr_oracle.py`.)
"""

import json
import sys

from databricks.bundles.jobs import ClusterSpec as BundleClusterSpec
from databricks.sdk.service.compute import ClusterSpec
from databricks.sdk.service.jobs import JobSettings


def first_difference(sent, back, path=""):
    """Where a round trip changed a value: a path and both values, or None."""
    if isinstance(sent, dict) and isinstance(back, dict):
        for key in sorted(set(sent) | set(back)):
            found = first_difference(sent.get(key), back.get(key), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(sent, list) and isinstance(back, list) and len(sent) == len(back):
        for index, (a, b) in enumerate(zip(sent, back)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if sent == back:
        return None
    # as_dict leaves out empty lists and maps
    if back is None and sent in ([], {}):
        return None
    return {"path": path, "sent": sent, "back": back}


def judge_databricks(item):
    cluster = item["cluster"]
    result = {"id": item["id"], "sdk": first_difference(cluster, ClusterSpec.from_dict(cluster).as_dict())}
    try:
        bundled = BundleClusterSpec.from_dict(cluster).as_dict()
        result["bundles"] = first_difference(cluster, bundled)
    except Exception as error:  # the bundle types refuse unknown fields and enum values
        result["bundles"] = {"path": "", "error": f"{type(error).__name__}: {error}"}
    if item.get("job") is not None:
        result["sdk_job"] = first_difference(item["job"], JobSettings.from_dict(item["job"]).as_dict())
    return result


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        corpus = json.load(handle)
    print(
        json.dumps(
            {
                "databricks": [judge_databricks(item) for item in corpus.get("databricks", [])],
            }
        )
    )


if __name__ == "__main__":
    main()
