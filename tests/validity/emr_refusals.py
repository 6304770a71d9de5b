"""Sends EMR requests with boto3 to an endpoint and to moto, and reports how each answered.

Reads a JSON file (path in argv[1]): {"endpoint": url, "requests": [{"id", "operation", "input"}]}. For each
request it calls boto3's EMR client (the operation in snake_case) against the endpoint and against moto
(`mock_aws`), and prints one JSON list: for each side null when the call succeeded, otherwise the error
code, HTTP status and message botocore read from the answer.
"""

import json
import re
import sys

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws

CREDENTIALS = {"aws_access_key_id": "AKIAEMULATOR0000", "aws_secret_access_key": "emulator-secret"}


def snake(operation):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


def answer(client, request):
    try:
        getattr(client, snake(request["operation"]))(**request["input"])
        return None
    except ClientError as error:
        return {
            "code": error.response["Error"]["Code"],
            "status": error.response["ResponseMetadata"]["HTTPStatusCode"],
            "message": error.response["Error"]["Message"],
        }


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        corpus = json.load(handle)
    endpoint = boto3.client(
        "emr", region_name="us-east-1", endpoint_url=corpus["endpoint"], **CREDENTIALS
    )
    results = [{"id": request["id"], "endpoint": answer(endpoint, request)} for request in corpus["requests"]]
    with mock_aws():
        moto = boto3.client("emr", region_name="us-east-1", **CREDENTIALS)
        for result, request in zip(results, corpus["requests"]):
            result["moto"] = answer(moto, request)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
