"""Words the package writes for people: a count with its noun in the right number."""

from __future__ import annotations


def count_of(count: int, singular: str, plural: str | None = None) -> str:
    """`1 step`, `2 steps`, `0 steps`: the way Setpoint words a count everywhere.

    `plural` is for nouns that do not take an "s" (`count_of(2, "analysis", "analyses")`).
    """
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"
