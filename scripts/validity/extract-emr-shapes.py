"""Writes packages/validity/src/emr/emr-service-model.json from the EMR service model botocore ships.

The shapes Setpoint's EMR requests are checked against (RunJobFlow, ModifyInstanceGroups,
ModifyInstanceFleet, PutManagedScalingPolicy and every shape they reach), with their types, required
members, enums, min/max and patterns; documentation is left out. Run it with the venv that has the
pinned botocore (python/requirements-test.txt):

    .venv/bin/python scripts/validity/extract-emr-shapes.py

botocore and its data files are Apache-2.0 (https://github.com/boto/botocore).
"""

import gzip
import json
import os
import sys

import botocore

OPERATIONS = ["RunJobFlow", "ModifyInstanceGroups", "ModifyInstanceFleet", "PutManagedScalingPolicy"]
KEPT = ["type", "required", "min", "max", "enum", "pattern", "union"]
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "packages", "validity", "src", "emr", "emr-service-model.json")


def load_model():
    base = os.path.join(os.path.dirname(botocore.__file__), "data", "emr", "2009-03-31")
    for name, opener in (("service-2.json", open), ("service-2.json.gz", gzip.open)):
        path = os.path.join(base, name)
        if os.path.exists(path):
            with opener(path, "rt", encoding="utf-8") as handle:
                return json.load(handle)
    sys.exit(f"no EMR service model under {base}")


def main():
    model = load_model()
    shapes = model["shapes"]
    roots = {op: model["operations"][op]["input"]["shape"] for op in OPERATIONS}
    kept = {}
    pending = list(roots.values())
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        shape = shapes[name]
        entry = {key: shape[key] for key in KEPT if key in shape}
        if "members" in shape:
            entry["members"] = {member: ref["shape"] for member, ref in shape["members"].items()}
            pending.extend(entry["members"].values())
        for key in ("member", "key", "value"):
            if key in shape:
                entry[key] = shape[key]["shape"]
                pending.append(entry[key])
        kept[name] = entry
    document = {
        "source": f"botocore {botocore.__version__} data/emr/2009-03-31/service-2.json (Apache-2.0, github.com/boto/botocore)",
        "generatedBy": "scripts/validity/extract-emr-shapes.py",
        "apiVersion": model["metadata"]["apiVersion"],
        "operations": roots,
        "shapes": dict(sorted(kept.items())),
    }
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"wrote {len(kept)} shapes to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
