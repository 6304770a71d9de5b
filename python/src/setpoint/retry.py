"""The one retry loop of the package's HTTP calls (Setpoint's API and a Databricks workspace's)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import httpx

from .errors import SetpointError

#: Answers worth asking again: timeouts, throttling and the server's transient failures.
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass
class RetryPolicy:
    attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 10.0

    def delay_s(self, attempt: int, retry_after: str | None = None) -> float:
        """Retry-After when the server sent whole seconds, else jittered exponential backoff."""
        if retry_after and retry_after.isdigit():
            return float(retry_after)
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return backoff * (0.5 + random.random() / 2)


def send_with_retries(
    send: Callable[[], httpx.Response],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    unreachable: Callable[[httpx.TransportError], SetpointError],
) -> httpx.Response:
    """Calls `send` until it answers with a status that is not transient, or the attempts run out.

    Returns the last answer (a transient status included, for the caller to report); when the connection
    failed on every attempt, raises `unreachable(error)`.
    """
    for attempt in range(1, policy.attempts + 1):
        try:
            response = send()
        except httpx.TransportError as error:
            if attempt == policy.attempts:
                raise unreachable(error) from error
            sleep(policy.delay_s(attempt))
            continue
        if response.status_code not in RETRYABLE_STATUSES or attempt == policy.attempts:
            return response
        sleep(policy.delay_s(attempt, response.headers.get("retry-after")))
    raise AssertionError("a retry policy needs at least one attempt")
