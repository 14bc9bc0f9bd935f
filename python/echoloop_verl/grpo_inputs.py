"""The `verl-grpo` template's inputs: a `verl` dataset snapshot's manifest and rows, and the sentient profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class TemplateError(ValueError):
    """An input the template cannot render from: exits 2 with this message."""


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as error:
                raise TemplateError(f"{path.name} line {number} is not JSON: {error}") from None
            if not isinstance(row, dict):
                raise TemplateError(f"{path.name} line {number} is not a JSON object")
            rows.append(row)
    return rows


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TemplateError(
            f"{path.name} is parquet and pyarrow is not installed here: export the snapshot as jsonl"
        ) from None
    return pq.read_table(path).to_pylist()


def read_snapshot(snapshot: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The snapshot's manifest and rows (checked): what a `verl` export wrote into one folder."""
    if not snapshot.is_dir():
        raise TemplateError(f"snapshot {snapshot} is not a folder")
    manifest_path = snapshot / "manifest.json"
    if not manifest_path.is_file():
        raise TemplateError(f"snapshot {snapshot} has no manifest.json")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise TemplateError(f"{manifest_path} is not JSON: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("id"), str) or not manifest["id"]:
        raise TemplateError(f"{manifest_path} has no dataset id")
    if manifest.get("kind") != "verl":
        raise TemplateError(f"snapshot {manifest['id']} is of kind {manifest.get('kind')!r}, not 'verl'")
    files = manifest.get("files")
    if not isinstance(files, list) or not files:
        raise TemplateError(f"snapshot {manifest['id']} lists no files")
    rows: list[dict[str, Any]] = []
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise TemplateError(f"snapshot {manifest['id']} lists a bad file name {name!r}")
        path = snapshot / name
        if not path.is_file():
            raise TemplateError(f"snapshot {manifest['id']} is missing its file {name}")
        if name.endswith(".jsonl"):
            rows.extend(_read_jsonl(path))
        elif name.endswith(".parquet"):
            rows.extend(_read_parquet(path))
        else:
            raise TemplateError(f"{name}: the template reads jsonl or parquet snapshots")
    if not rows:
        raise TemplateError(f"snapshot {manifest['id']} is empty: no rows to train on")
    for number, row in enumerate(rows, 1):
        _check_row(row, number)
    return manifest, rows


def _check_row(row: dict[str, Any], number: int) -> None:
    prompt = row.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        raise TemplateError(f"row {number} has no prompt")
    for message in prompt:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant"):
            raise TemplateError(f"row {number}: prompt messages must be {{role, content}}")
        if not isinstance(message.get("content"), str):
            raise TemplateError(f"row {number}: a prompt message has no text content")
    if prompt[-1]["role"] != "user":
        raise TemplateError(f"row {number}: the prompt must end with the user message")
    if not isinstance(row.get("data_source"), str):
        raise TemplateError(f"row {number} has no data_source")
    reward_model = row.get("reward_model")
    if not isinstance(reward_model, dict) or not isinstance(reward_model.get("ground_truth"), str):
        raise TemplateError(f"row {number}: reward_model.ground_truth must be a string (may be empty)")
    if not isinstance(row.get("extra_info"), dict):
        raise TemplateError(f"row {number} has no extra_info")


def read_training_profiles(path: Path) -> list[dict[str, Any]]:
    """The training pool's profiles with an opener (benchmark profiles are never trained on)."""
    if not path.is_file():
        raise TemplateError(f"profiles file {path} does not exist")
    profiles = [
        p
        for p in _read_jsonl(path)
        if p.get("pool") == "train" and p.get("id") and str(p.get("firstMessage", "")).strip()
    ]
    if not profiles:
        raise TemplateError(f"{path} has no training-pool profile with a firstMessage")
    return profiles
