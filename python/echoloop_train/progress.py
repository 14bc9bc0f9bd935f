"""The job's stdout protocol: lines the orchestrator picks out of the job logs."""

import json
from pathlib import Path
from typing import Any

PROGRESS_PREFIX = "ECHOLOOP_PROGRESS"
MANIFEST_PREFIX = "ECHOLOOP_MANIFEST"


def progress_line(stage: str, **fields: Any) -> str:
    return f"{PROGRESS_PREFIX} {json.dumps({'stage': stage, **fields}, separators=(',', ':'))}"


def emit_progress(stage: str, **fields: Any) -> None:
    print(progress_line(stage, **fields), flush=True)


def emit_manifest(path: Path) -> None:
    print(f"{MANIFEST_PREFIX} {path}", flush=True)
