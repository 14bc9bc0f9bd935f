"""The checks' output: one `OK <check>` or `FAIL <check>: <why>` line each, and the failures so far."""

from __future__ import annotations

FAILED: list[str] = []


def ok(name: str) -> None:
    print(f"OK   {name}")


def fail(name: str, why: str) -> None:
    FAILED.append(name)
    print(f"FAIL {name}: {why}")


def check(name: str, problems: list[str]) -> None:
    if problems:
        fail(name, "; ".join(problems))
    else:
        ok(name)
