"""Merging a Setpoint recommendation into a Databricks `new_cluster` spec."""

from __future__ import annotations

import copy
from typing import Any, Mapping

SIZING_FIELDS = ("num_workers", "autoscale")
PROJECT_TAG = "setpoint:project-id"
RECOMMENDATION_TAG = "setpoint:recommendation-id"


def deep_merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """Dicts merge recursively, scalars are replaced, lists are unioned without duplicates.

    Lists are not concatenated blindly: merging a recommendation twice must not duplicate
    `init_scripts` entries.
    """
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            union = list(merged[key])
            for item in value:
                if item not in union:
                    union.append(copy.deepcopy(item))
            merged[key] = union
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_recommendation(cluster: Mapping[str, Any], configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The cluster with the recommended configuration: sizing is replaced whole, the rest merged."""
    base = {key: value for key, value in cluster.items() if key not in SIZING_FIELDS}
    return deep_merge(base, configuration)


def locate_cluster(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """Where the cluster lives in a runs/submit payload: `new_cluster` or `tasks[0].new_cluster`."""
    if isinstance(payload.get("new_cluster"), Mapping):
        return ("new_cluster",)
    tasks = payload.get("tasks")
    if isinstance(tasks, list) and tasks and isinstance(tasks[0], Mapping) and isinstance(tasks[0].get("new_cluster"), Mapping):
        return ("tasks", "0", "new_cluster")
    raise ValueError("the payload has no new_cluster (looked at new_cluster and tasks[0].new_cluster)")


def get_path(payload: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        payload = payload[int(part)] if isinstance(payload, list) else payload[part]
    return payload


def set_path(payload: Any, path: tuple[str, ...], value: Any) -> None:
    parent = get_path(payload, path[:-1])
    last = path[-1]
    if isinstance(parent, list):
        parent[int(last)] = value
    else:
        parent[last] = value


def cluster_log_conf(url: str) -> dict[str, Any]:
    if url.startswith("dbfs:/"):
        return {"dbfs": {"destination": url}}
    if url.startswith("s3://"):
        return {"s3": {"destination": url, "enable_encryption": True, "canned_acl": "bucket-owner-full-control"}}
    if url.startswith("/Volumes/"):
        return {"volumes": {"destination": url}}
    raise ValueError(f"cluster_log_url must start with dbfs:/, s3:// or /Volumes/, got {url!r}")
