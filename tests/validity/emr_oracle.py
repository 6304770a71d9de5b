"""Judges EMR requests with code Setpoint did not write: botocore's parameter validation and moto.

Reads a JSON corpus (path in argv[1]) of [{"id", "operation", "input"}] and prints one JSON list: for each
request botocore's validation errors (as `ParamValidator` reports them before the SDK sends anything) and,
for a RunJobFlow botocore takes, moto's answer to `run_job_flow` (null when it launched the cluster).
"""

import json
import sys

import boto3
import botocore.session
from botocore.validate import ParamValidator
from moto import mock_aws


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        corpus = json.load(handle)
    model = botocore.session.get_session().get_service_model("emr")
    validator = ParamValidator()
    results = []
    with mock_aws():
        client = boto3.client(
            "emr",
            region_name="us-east-1",
            aws_access_key_id="AKIAMOTO00000000",
            aws_secret_access_key="moto-secret",
        )
        for item in corpus:
            shape = model.operation_model(item["operation"]).input_shape
            report = validator.validate(item["input"], shape)
            errors = report.generate_report().splitlines() if report.has_errors() else []
            result = {"id": item["id"], "botocore": [line.strip() for line in errors if line.strip()]}
            if item["operation"] == "RunJobFlow" and not errors:
                try:
                    client.run_job_flow(**item["input"])
                    result["moto"] = None
                except Exception as error:  # moto answers a refusal as a ClientError
                    result["moto"] = f"{type(error).__name__}: {error}"
            results.append(result)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
